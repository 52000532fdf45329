import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { owner, findLayer } from './layerStore.ts';
import { layerView } from './views.ts';

export async function getLayer(ctx: ChartContext, caller: Caller, input: { layerId: string }) {
  const own = owner(caller);
  return { layer: layerView(await findLayer(ctx.db, own.id, input.layerId), own.publicId) };
}
