/**
 * Last-write-wins merge of chart drawings edited on several devices (spec 2.6
 * `clientUpdatedAtMs`). The later `clientUpdatedAtMs` wins. Ties are broken by the
 * content itself, never by arrival order, so every device and every replay reaches the
 * same state: a deletion beats an edit, then the larger content in a fixed field order
 * wins. The merge is thus the maximum of a total order: commutative, associative and
 * idempotent.
 */
export interface DrawingState {
  type: number;
  version: number;
  payload: Uint8Array;
  bboxTimeMinMs: bigint;
  bboxTimeMaxMs: bigint;
  bboxPriceMin: number;
  bboxPriceMax: number;
  clientUpdatedAtMs: bigint;
  deleted: boolean;
}

const cmp = <T extends number | bigint>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

function comparePayload(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return cmp(a[i] as number, b[i] as number);
  return cmp(a.length, b.length);
}

/** Total order of drawing states; 0 only for states equal in every field. */
export function compareDrawingStates(a: DrawingState, b: DrawingState): number {
  return (
    cmp(a.clientUpdatedAtMs, b.clientUpdatedAtMs) ||
    cmp(Number(a.deleted), Number(b.deleted)) ||
    cmp(a.type, b.type) ||
    cmp(a.version, b.version) ||
    comparePayload(a.payload, b.payload) ||
    cmp(a.bboxTimeMinMs, b.bboxTimeMinMs) ||
    cmp(a.bboxTimeMaxMs, b.bboxTimeMaxMs) ||
    cmp(a.bboxPriceMin, b.bboxPriceMin) ||
    cmp(a.bboxPriceMax, b.bboxPriceMax)
  );
}

/** The winner of two states of one drawing; `a` when they are equal. */
export function mergeDrawingStates<T extends DrawingState>(a: T, b: T): T {
  return compareDrawingStates(a, b) >= 0 ? a : b;
}

export type SyncWinner = 'CLIENT' | 'SERVER';

/**
 * The state a drawing ends in when a device sends `incoming` (one or more offline
 * edits of it) and the server holds `server`: the server keeps its state unless an
 * incoming one is strictly greater, so a replayed sync changes nothing.
 */
export function resolveDrawingSync<T extends DrawingState>(
  server: T | undefined,
  incoming: readonly T[],
): { winner: SyncWinner; state: T } {
  if (incoming.length === 0) {
    if (!server) throw new Error('resolveDrawingSync needs a state');
    return { winner: 'SERVER', state: server };
  }
  const best = incoming.reduce((a, b) => mergeDrawingStates(a, b));
  if (server && compareDrawingStates(server, best) >= 0) return { winner: 'SERVER', state: server };
  return { winner: 'CLIENT', state: best };
}
