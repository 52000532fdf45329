import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { checkLine, checkWidgets, layoutNotFound } from './checks.ts';
import { metered, type LayoutsContext } from './context.ts';
import { saveLayout } from './store.ts';
import { LAYOUT_NAME_MAX, MAX_PANEL_VIEW_STATE_BYTES } from './upsertLayout.schema.ts';
import { layoutView, type LayoutInput } from './views.ts';

/**
 * Creates when `layoutId` is 0 or absent, else replaces the caller's layout of that id
 * (name, default flag, panel state and the whole widget list). `viewerId` and
 * `updatedAtMs` are the server's.
 */
export async function upsertLayout(ctx: LayoutsContext, caller: Caller, input: { layout: LayoutInput }) {
  const v = await metered(ctx, caller, 'layout.mutate');
  const l = input.layout;
  const layoutId = l.layoutId === undefined || l.layoutId === 0n ? undefined : l.layoutId;
  if (layoutId !== undefined && layoutId < 0n) throw layoutNotFound();
  const name = checkLine(l.name, 'layout.name', LAYOUT_NAME_MAX);
  const panelViewState = l.panelViewState ?? new Uint8Array();
  if (panelViewState.length > MAX_PANEL_VIEW_STATE_BYTES) {
    throw invalidArgument('layout.panelViewState', `must be at most ${MAX_PANEL_VIEW_STATE_BYTES} bytes`, 'max-bytes');
  }
  const widgets = checkWidgets(l.widgets ?? []);
  const row = await ctx.db.$transaction((tx) => saveLayout(ctx, tx, v.id, layoutId, { name, isDefault: l.isDefault ?? false, panelViewState, widgets }));
  return { layout: layoutView(row, v.viewerId) };
}
