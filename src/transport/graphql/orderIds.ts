import type { GraphQLContext } from './context.ts';

/**
 * The public ids of orders a request's rows name by internal id (triggers' parent orders,
 * the children their events name), looked up together: every id asked for while a page's
 * fields resolve is gathered until the event loop turns, then read in one statement,
 * whatever the page size.
 */
interface Batch {
  ids: Set<bigint>;
  answer: Promise<Map<bigint, string>>;
}

const pending = new WeakMap<GraphQLContext, Batch>();

export async function orderPublicId(ctx: GraphQLContext, id: bigint): Promise<string> {
  let batch = pending.get(ctx);
  if (!batch) {
    const ids = new Set<bigint>();
    const answer = new Promise<Map<bigint, string>>((resolve, reject) => {
      setImmediate(() => {
        pending.delete(ctx);
        ctx.services.orders.orderPublicIds([...ids]).then(resolve, reject);
      });
    });
    batch = { ids, answer };
    pending.set(ctx, batch);
  }
  batch.ids.add(id);
  const publicId = (await batch.answer).get(id);
  if (publicId === undefined) throw new Error(`order ${id} is named by a row but does not exist (npm run db:check)`);
  return publicId;
}
