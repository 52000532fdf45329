import { z } from 'zod';
import type { WidgetType } from '../../generated/prisma/client.ts';
import { bytes, nonNegativeInt64 } from '../inputCodec.ts';

export const WIDGET_TYPES = ['CHART', 'ORDERBOOK', 'TRADES', 'POSITIONS', 'ORDERS'] as const satisfies readonly WidgetType[];
export const LAYOUT_NAME_MAX = 100;
export const MAX_LAYOUTS_PER_VIEWER = 100;
export const MAX_WIDGETS_PER_LAYOUT = 50;
export const MAX_PANEL_VIEW_STATE_BYTES = 64 * 1024;
export const MAX_WIDGET_CONFIG_BYTES = 16 * 1024;
/** What the transports let through: past the rules above, so the service names the rule that failed. */
export const NAME_INPUT_MAX = 1024;
const WIDGETS_INPUT_MAX = 1000;

const widgetInput = z.strictObject({ widgetId: z.string().max(64), widgetType: z.enum(WIDGET_TYPES), widgetConfig: bytes() });

/** A layout as a client sends it; it may send back one as it received it (`viewerId` and `updatedAtMs` are ignored). */
export const layoutInput = z.strictObject({
  viewerId: z.string().max(32).optional(),
  // "0" or "" creates.
  layoutId: z.union([z.literal('').transform(() => 0n), nonNegativeInt64()]).optional(),
  name: z.string().max(NAME_INPUT_MAX),
  isDefault: z.boolean().optional(),
  panelViewState: bytes().optional(),
  widgets: z.array(widgetInput).max(WIDGETS_INPUT_MAX).optional(),
  updatedAtMs: z.string().max(32).optional(),
});

export const upsertLayoutBody = z.strictObject({ layout: layoutInput });
export type UpsertLayoutBody = z.output<typeof upsertLayoutBody>;
