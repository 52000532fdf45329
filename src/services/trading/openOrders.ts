import { ExpiryIndex } from './expiries.ts';
import type { OrderVersion } from './writeSet.ts';

/**
 * The engine's open orders, by id, by account and by GTD expiry: a read of one account's
 * orders costs that account's orders, and the expiry sweep the due orders, not a scan of
 * every open order.
 */
export class OpenOrders {
  private readonly byId = new Map<bigint, OrderVersion>();
  private readonly byAccount = new Map<bigint, Set<bigint>>();
  private readonly byExpiry = new ExpiryIndex<bigint>();

  get(id: bigint): OrderVersion | undefined {
    return this.byId.get(id);
  }

  set(id: bigint, row: OrderVersion): void {
    this.byId.set(id, row);
    if (row.expireAtTsNs !== null) this.byExpiry.add(id, row.expireAtTsNs);
    else this.byExpiry.delete(id);
    let ids = this.byAccount.get(row.accountId);
    if (!ids) this.byAccount.set(row.accountId, (ids = new Set()));
    ids.add(id);
  }

  delete(id: bigint): void {
    const row = this.byId.get(id);
    if (!row) return;
    this.byId.delete(id);
    this.byExpiry.delete(id);
    const ids = this.byAccount.get(row.accountId);
    ids?.delete(id);
    if (ids?.size === 0) this.byAccount.delete(row.accountId);
  }

  values(): IterableIterator<OrderVersion> {
    return this.byId.values();
  }

  countOf(accountId: bigint): number {
    return this.byAccount.get(accountId)?.size ?? 0;
  }

  /** Open orders whose GTD expiry is at or before `nowNs`, earliest first (live rows). */
  dueBy(nowNs: bigint): OrderVersion[] {
    return this.byExpiry.due(nowNs).map((id) => this.byId.get(id) as OrderVersion);
  }

  /** The account's open orders, live rows (callers inside a job may change them; others copy). */
  ofAccount(accountId: bigint): OrderVersion[] {
    return [...(this.byAccount.get(accountId) ?? [])].map((id) => this.byId.get(id) as OrderVersion);
  }
}
