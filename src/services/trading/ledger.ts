import type { Caller } from '../../auth/caller.ts';
import { ApiError, invalidArgument } from '../../domain/errors.ts';
import { parseScaled, E18, MAX_LEDGER_AMOUNT_E18 } from '../../domain/money.ts';
import type { LedgerAccount, Prisma } from '../../generated/prisma/client.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { Asset, MarketCatalog } from '../markets.ts';
import { PageTokens, pageLimit, toPage } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { BalanceRef } from './balances.ts';
import type { TradingEngine } from './engine.ts';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  /** Transfers are posted through the trading engine: the one writer of balances. */
  engine: TradingEngine;
  limiter: RateLimiter;
  pageTokens: PageTokens;
  systemAccounts: { custody: bigint; fees: bigint };
}

/**
 * Balances and ledger transfers (spec 2.11, 4.7): deposits (operator credits until the
 * chain lands), internal transfers, and the transfer history. Every movement is a set
 * of legs that sums to zero per asset, posted through the same sequencer as trades.
 */
export function createLedgerService(deps: LedgerDeps) {
  const { db, markets, engine } = deps;

  function assetOf(ref: string, fieldPath: string): Asset {
    const asset = markets.asset(ref);
    if (!asset) throw invalidArgument(fieldPath, 'is not a known asset symbol or id', 'asset');
    return asset;
  }

  return {
    /** Operator credit: a DEPOSIT from the custody account into an account's ledger. */
    async credit(input: { accountId: string; asset: string; amount: string; ledgerAccount: LedgerAccount }) {
      const account = await db.account.findUnique({ where: { publicId: input.accountId }, select: { id: true, kind: true } });
      if (!account || account.kind === 'SYSTEM') throw new ApiError('not-found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const asset = assetOf(input.asset, 'asset');
      const amount = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
      const to: BalanceRef = { accountId: account.id, ledgerAccount: input.ledgerAccount, assetId: asset.unifiedAssetId };
      const from: BalanceRef = { accountId: deps.systemAccounts.custody, ledgerAccount: 'FUNDING', assetId: asset.unifiedAssetId };
      return engine.transfer([to, from], (job) => {
        const t = job.post({ code: 'DEPOSIT' }, [{ ref: from, amount, kind: 'EXTERNAL_ADDRESS' }], [{ ref: to, amount }]);
        const b = job.balance(to);
        return { linkId: t.id, accountId: input.accountId, asset: asset.symbol, ledgerAccount: input.ledgerAccount, available: b.available, held: b.held };
      });
    },

    /**
     * Moves funds between FUNDING and TRADING of one account, or between a root account
     * and its subaccounts (INTERNAL_TRANSFER pool). Never more than is available.
     */
    async internalTransfer(
      caller: Caller,
      input: { asset: string; amount: string; fromLedger: LedgerAccount; toLedger: LedgerAccount; fromSubaccountId?: string; toSubaccountId?: string },
    ) {
      requirePermission(caller, 'TRANSFER');
      const from = await resolveAccount(db, caller, input.fromSubaccountId, 'fromSubaccountId');
      const to = await resolveAccount(db, caller, input.toSubaccountId, 'toSubaccountId');
      await deps.limiter.admit('transfer.internal', { caller, account: from });
      const asset = assetOf(input.asset, 'asset');
      const amount = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
      if (from.id === to.id && input.fromLedger === input.toLedger) {
        throw invalidArgument('toLedger', 'source and destination are the same', 'distinct');
      }
      const src: BalanceRef = { accountId: from.id, ledgerAccount: input.fromLedger, assetId: asset.unifiedAssetId };
      const dst: BalanceRef = { accountId: to.id, ledgerAccount: input.toLedger, assetId: asset.unifiedAssetId };
      return engine.transfer([src, dst], (job) => {
        if (job.balance(src).available < amount) {
          throw new ApiError('invalid-argument', 'insufficient available balance', {
            code: 'INSUFFICIENT_BALANCE',
            violations: [{ fieldPath: 'amount', message: 'exceeds the available balance', ruleId: 'balance' }],
          });
        }
        const t = job.post({ code: 'INTERNAL_TRANSFER' }, [{ ref: src, amount }], [{ ref: dst, amount }]);
        return { linkId: t.id, timestampUs: job.nowUs };
      });
    },

    /** GET /v1/balances: every non-zero balance of the account, both ledgers. */
    async listBalances(caller: Caller, input: { subaccountId?: string }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId);
      // From the engine's memory, read in sequence: every acknowledged change, no wait for the projection.
      const rows = await engine.balancesOf(account.id, markets.assets.map((a) => a.unifiedAssetId));
      return {
        accountId: account.publicId,
        balances: rows
          .filter((r) => r.available !== 0n || r.held !== 0n)
          .map((r) => ({
            ledgerAccount: r.ledgerAccount,
            asset: (markets.asset(r.assetId) as Asset).symbol,
            assetId: r.assetId,
            available: r.available,
            held: r.held,
          })),
      };
    },

    /** GET /v1/transfers (spec 4.7): the account's legs, oldest first unless reversed. */
    async listTransfers(caller: Caller, input: { subaccountId?: string; ledger?: LedgerAccount; asset?: string; reversed?: boolean; limit?: number; pageToken?: string }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId, 'subaccount_id');
      const asset = input.asset !== undefined ? assetOf(input.asset, 'asset') : undefined;
      const limit = pageLimit(input.limit, 1000);
      const reversed = input.reversed ?? false;
      const binding = {
        operation: 'listTransfers',
        caller: caller.rootPublicId,
        filters: { account: account.publicId, ledger: input.ledger ?? null, asset: asset?.unifiedAssetId ?? null, reversed },
      };
      const cursor = deps.pageTokens.decode<{ ts: string; id: string }>(input.pageToken, binding, 'page_token');
      const cmp = reversed ? 'lt' : 'gt';
      const where: Prisma.LedgerTransferLegWhereInput = {
        accountId: account.id,
        ...(input.ledger ? { ledgerAccount: input.ledger } : {}),
        ...(asset ? { assetId: asset.unifiedAssetId } : {}),
        ...(cursor
          ? { OR: [{ timestampUs: { [cmp]: BigInt(cursor.ts) } }, { timestampUs: BigInt(cursor.ts), id: { [cmp]: BigInt(cursor.id) } }] }
          : {}),
      };
      const dir = reversed ? 'desc' : 'asc';
      await engine.readable(account.id);
      const rows = await db.ledgerTransferLeg.findMany({
        where,
        orderBy: [{ timestampUs: dir }, { id: dir }],
        take: limit + 1,
      });
      const page = toPage(rows, limit, deps.pageTokens, binding, (r) => ({ ts: r.timestampUs.toString(), id: r.id.toString() }));
      // Legs carry no foreign keys (docs/scaling.md): their counterparties are looked up here.
      const sides = [...new Set(page.items.flatMap((r) => [r.sourceAccountId, r.destinationAccountId]).filter((id): id is bigint => id !== null))];
      const accounts = new Map(
        sides.length === 0
          ? []
          : (await db.account.findMany({ where: { id: { in: sides } }, select: { publicId: true, kind: true, rootAccountId: true, id: true } })).map((a) => [a.id, a]),
      );
      // Counterparties are named only when they are the caller's own accounts.
      const ownId = (id: bigint | null) => {
        const a = id === null ? undefined : accounts.get(id);
        return a !== undefined && a.kind !== 'SYSTEM' && (a.id === caller.rootAccountId || a.rootAccountId === caller.rootAccountId) ? a.publicId : '';
      };
      const flowIds = [...new Set(page.items.map((r) => r.flowId).filter((id): id is bigint => id !== null))];
      const flows = new Map(
        flowIds.length === 0
          ? []
          : (await db.lifecycleFlow.findMany({ where: { id: { in: flowIds } }, select: { id: true, publicId: true, sourceAddress: true, destinationAddress: true, serviceChainId: true, flowKind: true } })).map((f) => [f.id, f]),
      );
      return {
        transfers: page.items.map((r) => {
          const flow = r.flowId !== null ? flows.get(r.flowId) : undefined;
          return {
            leg: r,
            asset: markets.asset(r.assetId) as Asset,
            sourceAccountId: ownId(r.sourceAccountId),
            destinationAccountId: ownId(r.destinationAccountId),
            ...(flow ? { flow } : {}),
          };
        }),
        nextPageToken: page.nextPageToken,
      };
    },
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
