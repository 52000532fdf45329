import { describe, expect, expectTypeOf, it } from 'vitest';
import type { paths } from '../../client/schema.ts';

/**
 * Compile-time checks of client/schema.ts (`npm test` typechecks test/): the body of
 * GET /v1/balances is its exact shape, not "a JSON object". Were it untyped again, the
 * reads below would not compile.
 */
type Balances = paths['/v1/balances']['get']['responses'][200]['content']['application/json'];
type Balance = Balances['balances'][number];

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

  it('refuses a member the contract does not have', () => {
    // @ts-expect-error `free` is not a member of a balance: an untyped body would accept it.
    const wrong: Balance = { ledgerAccount: 'TRADING', asset: 'USDC', assetId: '2', available: '1', held: '0', total: '1', free: '1' };
    expect(wrong.asset).toBe('USDC');
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
