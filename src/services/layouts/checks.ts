import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { MAX_TEMPLATE_TAGS, TEMPLATE_TAG_MAX } from './publishLayout.schema.ts';
import { MAX_WIDGET_CONFIG_BYTES, MAX_WIDGETS_PER_LAYOUT, WIDGET_TYPES } from './upsertLayout.schema.ts';
import type { WidgetView } from './views.ts';

/** The rules of spec 2.5 the layout operations share, and their not-found errors. */

const WIDGET_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TAG = /^[a-z0-9][a-z0-9_-]*$/;

export const layoutNotFound = () => errors.LAYOUT_NOT_FOUND('layout not found');
export const templateNotFound = () => errors.LAYOUT_TEMPLATE_NOT_FOUND('layout template not found');
export const versionNotFound = () => errors.LAYOUT_TEMPLATE_VERSION_NOT_FOUND('layout template version not found');

export const chars = (s: string) => [...s].length;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export function checkLine(raw: string, fieldPath: string, max: number): string {
  const v = raw.trim();
  if (chars(v) < 1 || chars(v) > max) throw invalidArgument(fieldPath, `must be 1 to ${max} characters`, 'length');
  if (CONTROL.test(v)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return v;
}

export function checkText(v: string, fieldPath: string, max: number): string {
  if (chars(v) > max) throw invalidArgument(fieldPath, `must be at most ${max} characters`, 'length');
  if (TEXT_CONTROL.test(v)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return v;
}

export function checkWidgets(widgets: WidgetView[]): WidgetView[] {
  if (widgets.length > MAX_WIDGETS_PER_LAYOUT) {
    throw invalidArgument('layout.widgets', `a layout holds at most ${MAX_WIDGETS_PER_LAYOUT} widgets`, 'max-widgets');
  }
  const seen = new Set<string>();
  widgets.forEach((w, i) => {
    const path = `layout.widgets[${i}]`;
    if (!WIDGET_ID.test(w.widgetId)) throw invalidArgument(`${path}.widgetId`, 'must be 1 to 64 letters, digits, "_" or "-"', 'widget-id');
    if (seen.has(w.widgetId)) throw invalidArgument(`${path}.widgetId`, 'is used by another widget of the layout', 'unique');
    seen.add(w.widgetId);
    if (!(WIDGET_TYPES as readonly string[]).includes(w.widgetType)) {
      throw invalidArgument(`${path}.widgetType`, `must be one of ${WIDGET_TYPES.join(', ')}`, 'enum');
    }
    if (w.widgetConfig.length > MAX_WIDGET_CONFIG_BYTES) {
      throw invalidArgument(`${path}.widgetConfig`, `must be at most ${MAX_WIDGET_CONFIG_BYTES} bytes`, 'max-bytes');
    }
  });
  return widgets;
}

export function checkTags(tags: string[]): string[] {
  const out = [...new Set(tags.map((t) => t.trim().toLowerCase()))];
  if (out.length > MAX_TEMPLATE_TAGS) throw invalidArgument('tags', `at most ${MAX_TEMPLATE_TAGS} tags`, 'max-tags');
  out.forEach((t) => {
    if (chars(t) < 1 || chars(t) > TEMPLATE_TAG_MAX || !TAG.test(t)) {
      throw invalidArgument('tags', `each tag is 1 to ${TEMPLATE_TAG_MAX} of a-z, 0-9, "_" or "-", starting with a letter or digit`, 'tag');
    }
  });
  return out;
}

