import type { Caller } from '../../../auth/caller.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import type { TriggerEventType } from '../../../generated/prisma/client.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Market } from '../../markets.ts';
import { pageLimit, toPage } from '../../pageTokens.ts';
import type { TradingContext } from '../context.ts';
import { findOwnTrigger } from './getTrigger.ts';

const EVENT_TYPES: TriggerEventType[] = ['CREATED', 'ARMED', 'THRESHOLD_UPDATED', 'FIRED', 'CHILD_PLACED', 'CHILD_FILLED', 'CHILD_CANCELED', 'CHILD_REJECTED', 'SLICE_SKIPPED', 'PAUSED', 'RESUMED', 'AMENDED', 'COMPLETED', 'CANCELED', 'FAILED', 'EXPIRED'];

/** Spec 4.6 List Trigger Events: one trigger's append-only events, newest first. */
export async function listTriggerEvents(ctx: TradingContext, caller: Caller, input: { triggerId: string; eventType?: string; subaccountId?: string; limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const eventType = input.eventType === undefined || input.eventType === 'EVENT_UNSPECIFIED' ? undefined : (input.eventType as TriggerEventType);
  if (eventType !== undefined && !EVENT_TYPES.includes(eventType)) throw invalidArgument('eventType', `must be EVENT_UNSPECIFIED or one of ${EVENT_TYPES.join(', ')}`, 'enum');
  const trigger = await findOwnTrigger(ctx, account.id, input);
  const limit = pageLimit(input.limit, 500);
  const binding = { operation: 'listTriggerEvents', caller: caller.rootPublicId, filters: { trigger: trigger.publicId, eventType: eventType ?? null } };
  const cursor = ctx.pageTokens.decode<{ tsNs: string; id: string }>(input.pageToken, binding);
  const rows = await ctx.db.triggerEvent.findMany({
    where: {
      triggerId: trigger.id,
      ...(eventType ? { eventType } : {}),
      ...(cursor ? { OR: [{ tsNs: { lt: BigInt(cursor.tsNs) } }, { tsNs: BigInt(cursor.tsNs), id: { lt: BigInt(cursor.id) } }] } : {}),
    },
    orderBy: [{ tsNs: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    include: { childOrder: { select: { publicId: true } } },
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ tsNs: r.tsNs.toString(), id: r.id.toString() }));
  return { events: page.items, trigger, account: account.publicId, market: ctx.markets.marketById(trigger.symbolId) as Market, nextPageToken: page.nextPageToken };
}
