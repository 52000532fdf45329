import { quoteNotional } from '../matching/notional.ts';
import { feeOf, toE18 } from '../money.ts';
import { feePpm } from './fees.ts';
import type { FeeAsset, ReservationMarket, Side } from './reservation.ts';

/** What settling needs of a market: reservations' part plus its two assets' ids. */
export interface SettlementMarket extends ReservationMarket {
  readonly base: { readonly unifiedAssetId: number };
  readonly quote: { readonly unifiedAssetId: number };
}

/** One side of a fill: the order's account, how it pays fees, and (for the buyer) its notional so far. */
export interface FillParty {
  accountId: bigint;
  feeAsset: FeeAsset;
  vipTier: number;
  /** Exact price * qty summed over the order's earlier fills (OrderRow.cumNotionalQ9). */
  cumNotionalQ9: bigint;
}

export interface FillInput {
  market: SettlementMarket;
  /** The system account that collects fees and pays rebates. */
  feeAccountId: bigint;
  price: bigint;
  qty: bigint;
  takerSide: Side;
  maker: FillParty;
  taker: FillParty;
}

export type LegCode = 'TRADE' | 'FEE' | 'REBATE';

export interface CreditLeg {
  accountId: bigint;
  assetId: number;
  amount: bigint;
  code: LegCode;
}

export interface DebitLeg extends CreditLeg {
  debitFrom: 'held' | 'available';
}

/** One order's part of the fill: its trade row's fee, and how much its reservation shrinks. */
export interface OrderSettlement {
  fee: bigint;
  rebate: boolean;
  asset: FeeAsset;
  heldDecrease: bigint;
}

export interface FillSettlement {
  /** What both orders' cumNotionalQ9 grow by. */
  notionalQ9: bigint;
  quoteE18: bigint;
  baseE18: bigint;
  /** In posting order: the ledger's balance-after of each leg depends on it. */
  debits: DebitLeg[];
  credits: CreditLeg[];
  maker: OrderSettlement;
  taker: OrderSettlement;
}

/**
 * Settles one fill as one transfer: the buyer's quote for the seller's base, and each
 * side's fee in its fee asset. The buyer's quote is telescoped on its cumulative notional
 * (ceil(after) - ceil(before)), so however a quantity is split into fills the buyer pays
 * the ceiling of the total once, never more than the single reservation at its limit.
 * Charged fees round up, rebates down (feeOf); a rebate is paid by the fee account.
 */
export function settleFill(input: FillInput): FillSettlement {
  const { market, maker, taker } = input;
  const buyer = input.takerSide === 'BUY' ? taker : maker;
  const seller = input.takerSide === 'BUY' ? maker : taker;
  const notionalQ9 = input.price * input.qty;
  const before = quoteNotional(1n, buyer.cumNotionalQ9, market.notional);
  const after = quoteNotional(1n, buyer.cumNotionalQ9 + notionalQ9, market.notional);
  const quoteE18 = toE18(after - before, market.quoteQuantityScale);
  const baseE18 = toE18(input.qty, market.baseQuantityScale);
  const quote = market.quote.unifiedAssetId;
  const base = market.base.unifiedAssetId;

  const debits: DebitLeg[] = [
    { accountId: buyer.accountId, assetId: quote, amount: quoteE18, debitFrom: 'held', code: 'TRADE' },
    { accountId: seller.accountId, assetId: base, amount: baseE18, debitFrom: 'held', code: 'TRADE' },
  ];
  const credits: CreditLeg[] = [
    { accountId: seller.accountId, assetId: quote, amount: quoteE18, code: 'TRADE' },
    { accountId: buyer.accountId, assetId: base, amount: baseE18, code: 'TRADE' },
  ];

  const feeFor = (party: FillParty, isBuyer: boolean): OrderSettlement => {
    const asset = party.feeAsset;
    const isMaker = isBuyer === (input.takerSide === 'SELL');
    const { fee, rebate } = feeOf(asset === 'BASE' ? baseE18 : quoteE18, feePpm(market, isMaker, party.vipTier));
    const assetId = asset === 'BASE' ? base : quote;
    let fromHeld = 0n;
    if (fee !== 0n && rebate) {
      debits.push({ accountId: input.feeAccountId, assetId, amount: fee, debitFrom: 'available', code: 'REBATE' });
      credits.push({ accountId: party.accountId, assetId, amount: fee, code: 'REBATE' });
    } else if (fee !== 0n) {
      // A buyer paying in quote reserved its fee; everyone else pays out of what this fill credits.
      const held = isBuyer && asset === 'QUOTE';
      debits.push({ accountId: party.accountId, assetId, amount: fee, debitFrom: held ? 'held' : 'available', code: 'FEE' });
      credits.push({ accountId: input.feeAccountId, assetId, amount: fee, code: 'FEE' });
      if (held) fromHeld = fee;
    }
    return { fee, rebate, asset, heldDecrease: (isBuyer ? quoteE18 : baseE18) + fromHeld };
  };
  // Buyer's fee legs before the seller's: leg order fixes each ledger leg's balance-after.
  const buyerPart = feeFor(buyer, true);
  const sellerPart = feeFor(seller, false);
  const takerBuys = input.takerSide === 'BUY';
  return { notionalQ9, quoteE18, baseE18, debits, credits, maker: takerBuys ? sellerPart : buyerPart, taker: takerBuys ? buyerPart : sellerPart };
}
