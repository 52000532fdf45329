import { describe, expect, expectTypeOf, it } from 'vitest';
import type { paths } from '../../client/schema.ts';

/**
 * Compile-time checks of client/schema.ts (`npm test` typechecks test/): the body of
 * GET /v1/balances, POST /v1/orders and GET /v1/orders/open are their exact shapes, not
 * "a JSON object". Were one untyped again, the reads below would not compile.
 */
type Balances = paths['/v1/balances']['get']['responses'][200]['content']['application/json'];
type Balance = Balances['balances'][number];
type CreateOrder = paths['/v1/orders']['post'];
type OrderAccepted = CreateOrder['responses'][200]['content']['application/json'];
type OpenOrders = paths['/v1/orders/open']['get']['responses'][200]['content']['application/json'];
type Order = OpenOrders['orders'][number];

describe('client/schema.ts', () => {
  it('types GET /v1/balances exactly', () => {
    const body: Balances = {
      accountId: 'acc',
      balances: [{ ledgerAccount: 'TRADING', asset: 'USDC', assetId: '2', available: '1.5', held: '0', total: '1.5' }],
    };
    const available: string = body.balances[0]!.available;
    expect(available).toBe('1.5');
    expectTypeOf<Balance['available']>().toEqualTypeOf<string>();
    expectTypeOf<Balance['held']>().toEqualTypeOf<string>();
    expectTypeOf<Balance['total']>().toEqualTypeOf<string>();
    expectTypeOf<Balance['assetId']>().toEqualTypeOf<string>();
    expectTypeOf<Balance['ledgerAccount']>().toEqualTypeOf<'FUNDING' | 'TRADING'>();
    expectTypeOf<keyof Balance>().toEqualTypeOf<'ledgerAccount' | 'asset' | 'assetId' | 'available' | 'held' | 'total'>();
    expectTypeOf<Balances['accountId']>().toEqualTypeOf<string>();
  });

  it('types POST /v1/orders, its request and its answer, exactly', () => {
    const request: CreateOrder['requestBody']['content']['application/json'] = {
      order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', limitGtc: { price: '30000' }, attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } },
    };
    expect(request.order.limitGtc?.price).toBe('30000');
    expectTypeOf(request.order.side).toEqualTypeOf<'BUY' | 'SELL'>();
    const body: OrderAccepted = {
      orderId: 'o1',
      acceptedAt: '2026-01-01T00:00:00.000Z',
      acceptedAtTsNs: '1767225600000000000',
      resolvedBaseQty: '0.5',
      stopLossTriggerId: 't1',
      takeProfitTriggerId: '',
      trailingStopTriggerId: '',
    };
    const trigger: string = body.stopLossTriggerId;
    expect(trigger).toBe('t1');
    expectTypeOf<OrderAccepted['clientOrderId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<OrderAccepted['submittedMaxQuoteDebit']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<keyof OrderAccepted>().toEqualTypeOf<
      'orderId' | 'clientOrderId' | 'acceptedAt' | 'acceptedAtTsNs' | 'resolvedBaseQty' | 'submittedMaxQuoteDebit' | 'stopLossTriggerId' | 'takeProfitTriggerId' | 'trailingStopTriggerId'
    >();
  });

  it('types GET /v1/orders/open exactly, attached risk included', () => {
    expectTypeOf<OpenOrders['nextPageToken']>().toEqualTypeOf<string>();
    expectTypeOf<Order['status']>().toEqualTypeOf<'PENDING' | 'NEW' | 'PARTIALLY_FILLED' | 'PAUSED' | 'FILLED' | 'CANCELED' | 'EXPIRED' | 'REJECTED' | 'REPLACED'>();
    expectTypeOf<Order['cumQty']>().toEqualTypeOf<string>();
    expectTypeOf<Order['version']>().toEqualTypeOf<number>();
    expectTypeOf<Order['expireAt']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Order['lineage']>().toEqualTypeOf<{ generation: number; id: string }>();
    type Risk = NonNullable<Order['attachedRisk']>;
    expectTypeOf<NonNullable<NonNullable<Risk['stopLoss']>['policy']>['triggerPrice']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<NonNullable<Risk['trailingStop']>['state']>['status']>().toEqualTypeOf<'NOT_CONFIGURED' | 'PENDING' | 'ARMED' | 'TRIGGERED' | 'COMPLETED' | 'CANCELED' | 'FAILED'>();
    const page: OpenOrders = { orders: [], nextPageToken: '' };
    expect(page.orders.map((o) => o.orderId)).toEqual([]);
  });

  it('refuses a member the contract does not have', () => {
    // @ts-expect-error `free` is not a member of a balance: an untyped body would accept it.
    const wrong: Balance = { ledgerAccount: 'TRADING', asset: 'USDC', assetId: '2', available: '1', held: '0', total: '1', free: '1' };
    expect(wrong.asset).toBe('USDC');
    // @ts-expect-error `filledQty` is not a member of an order: spec 2.7 calls it cumQty.
    const order: Partial<Order> = { filledQty: '1' };
    expect(order).toBeDefined();
  });
});

type TriggerEnvelope = paths['/v1/triggers/{triggerId}']['get']['responses'][200]['content']['application/json'];
type Trigger = TriggerEnvelope['trigger'];

describe('client/schema.ts, triggers', () => {
  it('types GET /v1/triggers/{triggerId} with its enums and its one strategy block per kind', () => {
    expectTypeOf<Trigger['status']>().toEqualTypeOf<'CREATED' | 'ARMED' | 'TRIGGERED' | 'RUNNING' | 'COMPLETED' | 'CANCELED' | 'FAILED' | 'EXPIRED' | 'PAUSED'>();
    expectTypeOf<Trigger['triggerType']>().toEqualTypeOf<'STOP_LOSS' | 'TAKE_PROFIT' | 'TRAILING_STOP' | 'TWAP' | 'LADDER'>();
    expectTypeOf<Trigger['acceptedAtTsNs']>().toEqualTypeOf<string>();
    expectTypeOf<Trigger['stop']['triggerDirection']>().toEqualTypeOf<'ABOVE' | 'BELOW' | ''>();
    expectTypeOf<NonNullable<Trigger['ladder']>['distribution']>().toEqualTypeOf<'FLAT' | 'ASCENDING' | 'DESCENDING'>();
    expectTypeOf<NonNullable<Trigger['state']['twap']>['sliceIndex']>().toEqualTypeOf<number>();
    const child: NonNullable<Trigger['stopLoss']>['child'] = { marketIoc: { maxSlippageBps: 100 } };
    expect('marketIoc' in child).toBe(true);
  });

  it('refuses a member the contract does not have', () => {
    // @ts-expect-error `price` is not a member of `stop`: an untyped body would accept it.
    const wrong: Trigger['stop'] = { triggerDirection: 'BELOW', triggerPrice: '25000', triggerPriceSource: 'LAST_PRICE', price: '1' };
    expect(wrong.triggerDirection).toBe('BELOW');
  });
});
