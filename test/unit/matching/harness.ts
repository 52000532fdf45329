import fc from 'fast-check';
import type { MatchEvent, ModifyOrder, OrderBookConfig, OrderId, PlaceOrder, StpMode } from '../../../src/domain/matching/index.ts';

/**
 * Random command streams for the matching tests. fast-check generates abstract commands
 * (tick offsets, lot counts, "pick the n-th live order"); a Driver turns each into a
 * concrete engine command against the live state at that point of the stream.
 */

export const CONFIGS: { name: string; config: OrderBookConfig; center: bigint }[] = [
  // notional = price * qty / 1e9: one tick (1.0) times qty, no rounding.
  { name: 'unit ticks', config: { tickSize: 1_000_000_000n, baseScale: 0, quoteScale: 0 }, center: 100n },
  // e = 9 + 3 - 1 = 11: rounding up matters; qty step 5.
  { name: 'scaled, step 5', config: { tickSize: 100_000_000n, qtyStep: 5n, baseScale: 3, quoteScale: 1 }, center: 1000n },
  // e = 9 + 0 - 12 = -3: notional multiplied by 1000; odd tick.
  { name: 'negative exponent', config: { tickSize: 7n, baseScale: 0, quoteScale: 12, nextMatchId: 500n, nextPrioritySeq: 90n }, center: 100n },
];

export type GenCommand =
  | {
      k: 'place';
      side: 'BUY' | 'SELL';
      kind: 'GTC' | 'GTD' | 'IOC' | 'MKT';
      tick: number;
      lots: number;
      account: number;
      stp: StpMode | undefined;
      postOnly: boolean;
      expireIn: number;
      cap: number | null;
      protection: boolean;
      flaw: 'none' | 'tick' | 'step' | 'dup' | 'kind';
    }
  | { k: 'cancel'; pick: number }
  | { k: 'modify'; pick: number; lots: number | null; tick: number | null }
  | { k: 'expire' }
  | { k: 'time'; dt: number }
  | { k: 'restart' };

const stp = fc.constantFrom<StpMode | undefined>(undefined, 'EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT');

function genPlace(ticks: number) {
  return fc.record({
    k: fc.constant('place' as const),
    side: fc.constantFrom('BUY' as const, 'SELL' as const),
    kind: fc.constantFrom('GTC' as const, 'GTC' as const, 'GTD' as const, 'IOC' as const, 'MKT' as const),
    tick: fc.integer({ min: -ticks, max: ticks }),
    lots: fc.integer({ min: 1, max: 12 }),
    account: fc.integer({ min: 1, max: 3 }),
    stp,
    postOnly: fc.boolean(),
    expireIn: fc.integer({ min: -1, max: 15 }),
    cap: fc.option(fc.integer({ min: 0, max: 60 }), { freq: 2 }),
    protection: fc.boolean(),
    // Mostly valid; sometimes a price off the tick, a quantity off the step, a duplicate
    // id or an invalid kind combination.
    flaw: fc.constantFrom<'none' | 'tick' | 'step' | 'dup' | 'kind'>(
      ...Array<'none'>(14).fill('none'),
      'tick',
      'step',
      'dup',
      'kind',
    ),
  });
}

/** Commands with limit prices within `ticks` ticks of the center; `placeWeight` tilts the mix. */
export function genCommandWith(ticks: number, placeWeight = 10): fc.Arbitrary<GenCommand> {
  return fc.oneof(
    { weight: placeWeight, arbitrary: genPlace(ticks) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: fc.nat(1000) }) },
    {
      weight: 6,
      arbitrary: fc.record({
        k: fc.constant('modify' as const),
        pick: fc.nat(1000),
        lots: fc.option(fc.integer({ min: 0, max: 14 }), { freq: 2 }),
        tick: fc.option(fc.integer({ min: -ticks, max: ticks }), { freq: 2 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ k: 'expire' as const }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('time' as const), dt: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 1, arbitrary: fc.constant({ k: 'restart' as const }) },
  );
}

export const genCommand = genCommandWith(6);

export const genStream = fc.array(genCommand, { minLength: 1, maxLength: 150, size: 'max' });

export type Concrete =
  | { k: 'place'; order: PlaceOrder; now: bigint }
  | { k: 'cancel'; id: OrderId }
  | { k: 'modify'; id: OrderId; change: ModifyOrder; now: bigint }
  | { k: 'expire'; now: bigint }
  | { k: 'restart' }
  | { k: 'none' };

/** Exact ceil(price * qty * 10^quoteScale / 10^(9 + baseScale)). */
export function notionalOf(config: OrderBookConfig, price: bigint, qty: bigint): bigint {
  const num = price * qty * 10n ** BigInt(config.quoteScale);
  const den = 10n ** BigInt(9 + config.baseScale);
  return (num + den - 1n) / den;
}

export class Driver {
  now = 1_000n;
  private nextId = 1;
  readonly used: OrderId[] = [];
  private readonly sides = new Map<OrderId, number>();
  private readonly step: bigint;

  /**
   * With `sided`, limit prices are placed on their own side of the center (bids below,
   * asks above) except one in ten, so the book grows deep instead of trading away.
   */
  constructor(
    readonly config: OrderBookConfig,
    readonly center: bigint,
    readonly sided = false,
  ) {
    this.step = config.qtyStep ?? 1n;
  }

  priceAt(tick: number): bigint {
    return (this.center + BigInt(tick)) * this.config.tickSize;
  }

  /** `live` lists the ids resting right now (in any order, sorted here for determinism). */
  concretize(c: GenCommand, live: OrderId[]): Concrete {
    switch (c.k) {
      case 'time':
        this.now += BigInt(c.dt);
        return { k: 'none' };
      case 'expire':
        return { k: 'expire', now: this.now };
      case 'restart':
        return { k: 'restart' };
      case 'cancel':
        return { k: 'cancel', id: this.pick(c.pick, live) };
      case 'modify': {
        const change: ModifyOrder = {};
        if (c.lots !== null) change.newQty = BigInt(c.lots) * this.step;
        const id = this.pick(c.pick, live);
        if (c.tick !== null) change.newPrice = this.priceAt(this.sided && c.tick % 10 !== 0 ? this.sideOf(id) * Math.abs(c.tick) : c.tick);
        return { k: 'modify', id, change, now: this.now };
      }
      case 'place': {
        let orderId: OrderId = `o${this.nextId++}`;
        if (c.flaw === 'dup' && this.used.length > 0) orderId = this.pick(7, live.length > 0 ? live : this.used);
        else this.used.push(orderId);
        const order: PlaceOrder = {
          orderId,
          accountId: `a${c.account}`,
          side: c.side,
          type: c.kind === 'MKT' ? 'MARKET' : 'LIMIT',
          tif: c.kind === 'MKT' ? 'IOC' : c.kind,
          qty: BigInt(c.lots) * this.step,
        };
        let tick = c.tick;
        if (this.sided && tick % 10 !== 0) tick = (c.side === 'BUY' ? -1 : 1) * Math.abs(tick);
        this.sides.set(orderId, c.side === 'BUY' ? -1 : 1);
        if (c.kind !== 'MKT' || c.protection) order.price = this.priceAt(tick);
        if (c.stp !== undefined) order.stpMode = c.stp;
        if (c.postOnly && (c.kind === 'GTC' || c.kind === 'GTD')) order.postOnly = true;
        if (c.kind === 'GTD') order.expireAtNs = this.now + BigInt(c.expireIn);
        if (c.cap !== null && c.side === 'BUY' && (c.kind === 'IOC' || c.kind === 'MKT')) {
          // Caps around a few lots' worth of notional at the center price.
          const lot = notionalOf(this.config, this.priceAt(0), this.step);
          order.maxQuoteNotional = (lot * BigInt(c.cap)) / 8n;
          if (order.maxQuoteNotional === 0n) order.maxQuoteNotional = c.cap === 0 ? 0n : 1n;
        }
        if (c.flaw === 'tick' && order.price !== undefined && this.config.tickSize > 1n) order.price += 1n;
        if (c.flaw === 'step' && this.step > 1n) order.qty += 1n;
        if (c.flaw === 'kind') {
          // One of the invalid combinations, chosen by the other fields.
          if (c.kind === 'IOC') order.postOnly = true;
          else if (c.kind === 'MKT') order.tif = 'GTC';
          else if (c.kind === 'GTD') delete order.expireAtNs;
          else order.maxQuoteNotional = 10n;
        }
        return { k: 'place', order, now: this.now };
      }
    }
  }

  /** -1 for an id last placed as BUY, 1 otherwise. */
  private sideOf(id: OrderId): number {
    return this.sides.get(id) ?? 1;
  }

  private pick(n: number, live: OrderId[]): OrderId {
    if (n % 10 === 0 || live.length === 0) {
      const all = this.used;
      return all.length === 0 || n % 20 === 0 ? 'unknown' : all[n % all.length]!;
    }
    const sorted = [...live].sort((a, b) => (String(a) < String(b) ? -1 : 1));
    return sorted[n % sorted.length]!;
  }
}

export interface Engine {
  place(order: PlaceOrder, now: bigint): MatchEvent[];
  cancel(id: OrderId): MatchEvent[];
  modify(id: OrderId, change: ModifyOrder, now: bigint): MatchEvent[];
  expireDue(now: bigint): MatchEvent[];
}

export function apply(engine: Engine, c: Concrete): MatchEvent[] {
  switch (c.k) {
    case 'place':
      return engine.place(c.order, c.now);
    case 'cancel':
      return engine.cancel(c.id);
    case 'modify':
      return engine.modify(c.id, c.change, c.now);
    case 'expire':
      return engine.expireDue(c.now);
    case 'restart':
    case 'none':
      return [];
  }
}
