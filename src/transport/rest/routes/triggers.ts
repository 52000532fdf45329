import {
  cancelAllTriggersBody,
  cancelTriggerBody,
  createTriggerBody,
  getTriggerParams,
  getTriggerQuery,
  listTriggerEventsParams,
  listTriggerEventsQuery,
  listTriggersQuery,
  modifyTriggerBody,
  pauseTriggerBody,
  resumeTriggerBody,
} from '../../../services/trading/index.ts';
import type { Services } from '../../../services/index.ts';
import { presentTrigger, presentTriggerAccepted, presentTriggersCanceled, triggerAcceptedSchema, triggerEnvelopeSchema, triggersCanceledSchema, triggersSchema } from '../../../presenters/trigger.ts';
import { presentTriggerEvent, triggerEventsSchema } from '../../../presenters/triggerEvent.ts';
import { defineRoute } from '../route.ts';

/** Spec 4.6 Triggers: standalone stop-loss and take-profit. */
export function triggerRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'createTrigger',
      method: 'POST',
      url: '/v1/triggers',
      summary: 'Create a standalone trigger: stop-loss, take-profit, trailing stop, TWAP or ladder, funded on acceptance (spec 4.6)',
      auth: 'caller',
      body: createTriggerBody,
      examples: {
        stopLoss: { summary: 'Sell 0.5 BTC at market if BTC-USDC trades at or below 25000', value: { trigger: { symbol: 'BTC-USDC', qty: '0.5', clientTriggerId: 'sl-1', stopLoss: { side: 'SELL', triggerPrice: '25000', child: { marketIoc: { maxSlippageBps: 100 } } } } } },
        takeProfit: { summary: 'Sell 0.5 BTC with a limit at 36000 once BTC-USDC trades at or above 35000', value: { trigger: { symbol: 'BTC-USDC', qty: '0.5', takeProfit: { side: 'SELL', triggerPrice: '35000', child: { limit: { price: '36000' } } } } } },
        twap: { summary: 'Buy 2 BTC over 10 minutes in one-minute slices, never above 31000 nor 1% above the price at the start', value: { trigger: { symbol: 'BTC-USDC', qty: '2', twap: { side: 'BUY', durationMs: 600000, intervalMs: 60000, limitPrice: '31000', maxAdverseBps: 100 } } } },
        ladder: { summary: 'Bid for 1 BTC in 5 post-only levels from 29000 to 29400, more at the lower prices', value: { trigger: { symbol: 'BTC-USDC', qty: '1', ladder: { side: 'BUY', levels: 5, minPrice: '29000', maxPrice: '29400', distribution: 'DESCENDING' } } } },
        trailingStop: { summary: 'Once BTC-USDC reaches 32000, sell 0.5 BTC at market when it falls 2% from its highest since', value: { trigger: { symbol: 'BTC-USDC', qty: '0.5', trailingStop: { side: 'SELL', activationPrice: '32000', trailingDistanceBps: 200, maxSlippageBps: 100 } } } },
      },
      response: triggerAcceptedSchema,
      handler: async ({ body }, ctx) => presentTriggerAccepted(await s.orders.createTrigger(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'listTriggers',
      method: 'GET',
      url: '/v1/triggers',
      summary: 'The account\'s triggers, newest first (spec 4.6)',
      auth: 'caller',
      query: listTriggersQuery,
      response: triggersSchema,
      handler: async ({ query }, ctx) => {
        const r = await s.orders.listTriggers(ctx.caller, query);
        return { triggers: r.triggers.map((t) => presentTrigger({ ...t, account: r.account })), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'cancelTrigger',
      method: 'POST',
      url: '/v1/triggers/cancel',
      summary: 'Cancel a live trigger by triggerId or clientTriggerId; its hold is released',
      auth: 'caller',
      body: cancelTriggerBody,
      response: triggerEnvelopeSchema,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.cancelTrigger(ctx.caller, body);
        return { trigger: presentTrigger(r) };
      },
    }),
    defineRoute({
      operationId: 'modifyTrigger',
      method: 'POST',
      url: '/v1/triggers/modify',
      summary: 'Amend a live trigger: trigger price, limit-child price, quantity (not an attached leg\'s) or trailing distance; its hold follows in the same job, a refusal changes nothing',
      auth: 'caller',
      body: modifyTriggerBody,
      examples: {
        stop: { summary: 'Move a stop-loss to 24500 and sell 0.4 BTC instead', value: { clientTriggerId: 'sl-1', triggerPrice: '24500', qty: '0.4' } },
        trailing: { summary: 'Tighten a trailing stop to 1%', value: { triggerId: '7Qm2kP9x', trailingDistanceBps: 100 } },
      },
      response: triggerEnvelopeSchema,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.modifyTrigger(ctx.caller, body);
        return { trigger: presentTrigger(r) };
      },
    }),
    defineRoute({
      operationId: 'cancelAllTriggers',
      method: 'POST',
      url: '/v1/triggers/cancel-all',
      summary: 'Cancel the live triggers of the account, of one symbol if given, in one job; holds released. includeAttached (default true) takes the legs protecting orders too',
      auth: 'caller',
      body: cancelAllTriggersBody,
      response: triggersCanceledSchema,
      handler: async ({ body }, ctx) => presentTriggersCanceled(await s.orders.cancelAllTriggers(ctx.caller, body)),
    }),
    ...(['pause', 'resume'] as const).map((verb) =>
      defineRoute({
        operationId: `${verb}Trigger`,
        method: 'POST',
        url: `/v1/triggers/${verb}`,
        summary:
          verb === 'pause'
            ? 'Pause an armed trigger: it stops watching prices, its funds stay held (spec 8)'
            : 'Arm a paused trigger again; refused while the last price is at or through it (spec 8)',
        auth: 'caller',
        body: verb === 'pause' ? pauseTriggerBody : resumeTriggerBody,
        response: triggerEnvelopeSchema,
        handler: async ({ body }, ctx) => {
          const r = await (verb === 'pause' ? s.orders.pauseTrigger : s.orders.resumeTrigger)(ctx.caller, body);
          return { trigger: presentTrigger(r) };
        },
      }),
    ),
    defineRoute({
      operationId: 'getTrigger',
      method: 'GET',
      url: '/v1/triggers/:triggerId',
      summary: 'One trigger (spec 4.6)',
      auth: 'caller',
      params: getTriggerParams,
      query: getTriggerQuery,
      response: triggerEnvelopeSchema,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.getTrigger(ctx.caller, { triggerId: params.triggerId, ...query });
        return { trigger: presentTrigger(r) };
      },
    }),
    defineRoute({
      operationId: 'listTriggerEvents',
      method: 'GET',
      url: '/v1/triggers/:triggerId/events',
      summary: 'A trigger\'s append-only events, newest first (spec 4.6)',
      auth: 'caller',
      params: listTriggerEventsParams,
      query: listTriggerEventsQuery,
      response: triggerEventsSchema,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.listTriggerEvents(ctx.caller, { triggerId: params.triggerId, ...query });
        return {
          events: r.events.map((e) => presentTriggerEvent({ event: e, triggerId: r.trigger.publicId, market: r.market, account: r.account, childOrderId: e.childOrder?.publicId ?? null })),
          nextPageToken: r.nextPageToken,
        };
      },
    }),
  ];
}
