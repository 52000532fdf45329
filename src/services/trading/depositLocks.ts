import { EXTERNAL_NETWORKS, NETWORK_LIST } from '../../domain/networks.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';

/** One credited deposit not yet final on its chain: `amount` of it must stay on the account until `untilMs`. */
interface Lock {
  flowId: bigint;
  amount: bigint;
  untilMs: number;
}

const keyOf = (accountId: bigint, assetId: number) => `${accountId}:${assetId}`;

/** Blocks between a deposit's credit (deposit confirmations) and its finality (withdraw confirmations). */
function lockBlocks(serviceChainId: number): number {
  const network = EXTERNAL_NETWORKS.get(serviceChainId);
  return network ? network.withdrawConfirmations - network.depositConfirmations : 0;
}

/**
 * The finality locks of credited deposits, the trading engine's state beside the balances.
 * A deposit is credited at its network's deposit confirmations but may leave on chain only
 * at its withdraw confirmations: until then a reorg could still take it back. From its
 * credit (inside the job that credits it) until that many more blocks have passed, the
 * account it was credited to must keep its amount, in its asset, across its two ledgers:
 * every job that would take value off the account checks this synchronously, so concurrent
 * requests cannot both pass. Rebuilt from the deposit legs of the ledger at every rebuild.
 */
export class DepositLocks {
  private readonly locks = new Map<string, Lock[]>();

  constructor(
    private readonly sql: SqlQueryable,
    private readonly blockMs: number,
  ) {}

  private lockMs(serviceChainId: number): number {
    return lockBlocks(serviceChainId) * this.blockMs;
  }

  /** From the tables, after they caught up with the journal: every deposit credited too recently to be final. */
  async load(nowMs: number): Promise<void> {
    const longest = Math.max(...NETWORK_LIST.map((n) => this.lockMs(n.registryChainId)));
    const rows = await this.sql.query<{ accountId: string; assetId: number; amount: string; timestampUs: string; flowId: string; serviceChainId: number }>(
      `SELECT l."accountId"::text AS "accountId", l."assetId", l.amount::text AS amount, l."timestampUs"::text AS "timestampUs", l."flowId"::text AS "flowId", f."serviceChainId"
         FROM "LedgerTransferLeg" l JOIN "LifecycleFlow" f ON f.id = l."flowId"
        WHERE l."transferCode" = 'DEPOSIT' AND NOT l."isDebit" AND l."timestampUs" > $1`,
      [String(BigInt(nowMs - longest) * 1000n)],
    );
    this.locks.clear();
    for (const r of rows) this.add(BigInt(r.accountId), r.assetId, BigInt(r.amount), r.serviceChainId, BigInt(r.flowId), Number(BigInt(r.timestampUs) / 1000n));
  }

  /** Inside the crediting job: the deposit stays locked from `creditedAtMs` until its network's finality. */
  add(accountId: bigint, assetId: number, amount: bigint, serviceChainId: number, flowId: bigint, creditedAtMs: number): void {
    const untilMs = creditedAtMs + this.lockMs(serviceChainId);
    if (untilMs <= creditedAtMs || amount <= 0n) return;
    const key = keyOf(accountId, assetId);
    const list = this.locks.get(key) ?? [];
    if (list.some((l) => l.flowId === flowId)) return;
    list.push({ flowId, amount, untilMs });
    this.locks.set(key, list);
  }

  /** True while the account has a lock in the asset (expired or not): its other ledger is loaded beside the one a job names. */
  has(accountId: bigint, assetId: number): boolean {
    return this.locks.has(keyOf(accountId, assetId));
  }

  /** What must stay on the account in the asset now, and when the last of it lifts; locks past finality are dropped. */
  locked(accountId: bigint, assetId: number, nowMs: number): { amount: bigint; untilMs: number } {
    const key = keyOf(accountId, assetId);
    const list = this.locks.get(key);
    if (!list) return { amount: 0n, untilMs: 0 };
    const live = list.filter((l) => l.untilMs > nowMs);
    if (live.length === 0) {
      this.locks.delete(key);
      return { amount: 0n, untilMs: 0 };
    }
    if (live.length !== list.length) this.locks.set(key, live);
    return { amount: live.reduce((s, l) => s + l.amount, 0n), untilMs: Math.max(...live.map((l) => l.untilMs)) };
  }
}
