import { errors } from '../../../domain/errorCatalogue.ts';
import type { Clock } from '../../../infra/clock.ts';
import type { Db } from '../../../infra/database.ts';
import { duplicateClientOrderId } from '../errors.ts';

const CLIENT_ID_IDLE_MS = 10 * 60_000;

/**
 * Per account, every client order id taken by an order (committed or in a group not yet
 * committed) with the time its retention ends. Read from the database once, then kept
 * here by the only writer; jobs check and take ids synchronously, so two orders can
 * never both take one, and an order with a clientOrderId costs no extra read. `usedAt`:
 * when they were last needed (idle accounts are forgotten, and read again).
 */
export class ClientOrderIds {
  private readonly clientIds = new Map<bigint, { ids: Map<string, number>; usedAt: number }>();
  private readonly clientIdLoads = new Map<bigint, Promise<void>>();
  /** Counts clears of `clientIds`: a read of the table begun before one is not kept. */
  private clientIdsEpoch = 0;

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Makes sure the account's ids are in memory before a job that may take one is submitted. */
  async load(accountId: bigint, clientOrderId: string | undefined): Promise<void> {
    if (clientOrderId === undefined) return;
    const known = this.clientIds.get(accountId);
    if (known) {
      known.usedAt = this.deps.clock.now().getTime();
      return;
    }
    let load = this.clientIdLoads.get(accountId);
    if (!load) {
      // No wait for the projection: every reservation of an account whose ids are not in
      // memory is in the table already (a rebuild catches the table up before it clears
      // them, and `prune` forgets an account only while the table is caught up).
      const epoch = this.clientIdsEpoch;
      load = this.deps.db.clientOrderIdReservation
        .findMany({ where: { accountId, expiresAt: { gt: this.deps.clock.now() } }, select: { clientOrderId: true, expiresAt: true } })
        .then((rows) => {
          if (epoch === this.clientIdsEpoch && !this.clientIds.has(accountId)) {
            this.clientIds.set(accountId, { ids: new Map(rows.map((r) => [r.clientOrderId, (r.expiresAt as Date).getTime()])), usedAt: this.deps.clock.now().getTime() });
          }
        })
        .finally(() => this.clientIdLoads.delete(accountId));
      this.clientIdLoads.set(accountId, load);
    }
    await load;
  }

  /** Inside a job: refuses a client order id still retained or taken by an order in flight. */
  check(accountId: bigint, clientOrderId: string | undefined, now: Date): void {
    if (clientOrderId === undefined) return;
    const ids = this.clientIds.get(accountId)?.ids;
    // Loaded before the job was submitted; only forgetting an idle account in between (see
    // `prune`) could get here.
    if (!ids) throw errors.RETRY('the order could not be checked for a duplicate clientOrderId; retry');
    if ((ids.get(clientOrderId) ?? 0) > now.getTime()) throw duplicateClientOrderId();
  }

  /** Inside a job: `clientOrderId` is taken by a new order until `expiresAtMs`. */
  take(accountId: bigint, clientOrderId: string, expiresAtMs: number): void {
    this.clientIds.get(accountId)?.ids.set(clientOrderId, expiresAtMs);
  }

  /**
   * Forgets expired ids, and the ids of accounts idle for ten minutes (read again on their
   * next order). An idle account's ids are read again from the table when next needed, so
   * they are forgotten only while the table holds every reservation acknowledged so far
   * (`projected`).
   */
  prune(nowMs: number, projected: boolean): void {
    for (const [accountId, { ids, usedAt }] of this.clientIds) {
      if (projected && usedAt < nowMs - CLIENT_ID_IDLE_MS) this.clientIds.delete(accountId);
      else for (const [id, until] of ids) if (until <= nowMs) ids.delete(id);
    }
  }

  /** Every group not yet committed was refused (a rebuild): the database holds every retained id. */
  clear(): void {
    this.clientIds.clear();
    this.clientIdsEpoch += 1;
  }
}
