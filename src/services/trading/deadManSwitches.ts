import type { Clock } from '../../infra/clock.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import type { BalanceBook, BalanceRef } from './balances.ts';
import { jobTime, type UserCancel } from './engineTypes.ts';
import { ExpiryIndex } from './expiries.ts';
import type { Sequencer } from './sequencer.ts';
import { switchKey, type SwitchRow, type WriteSet } from './writeSet.ts';

/** Inside a job: cancels the account's open orders and live triggers in `markets` (and `side`); how many. */
export type CancelScope = (ws: WriteSet, accountId: bigint, markets: readonly Market[], side: 'BUY' | 'SELL' | undefined, why: UserCancel, now: Date, nowNs: bigint) => number;

/** Dead-man switches (spec 3): armed per account and scope, fired inside a job when their time passes. */
export class DeadManSwitches {
  /** Armed dead-man switches, by switchKey: they fire inside a job, so a heartbeat is ordered before or after a firing. */
  private armedSwitches = new Map<string, SwitchRow>();
  /** The armed switches by expiry, for the sweep. */
  private switchExpiries = new ExpiryIndex<string>();
  private readonly sequencer: Sequencer;
  private readonly balances: BalanceBook;

  constructor(
    private readonly deps: { clock: Clock; markets: MarketCatalog; sequencer: Sequencer; balances: BalanceBook; refsFor: (accountIds: bigint[], market: Market) => BalanceRef[]; cancel: CancelScope },
  ) {
    this.sequencer = deps.sequencer;
    this.balances = deps.balances;
  }

  /** Arms the switches stored armed (recovery), forgetting any armed before. */
  restore(armed: SwitchRow[]): void {
    this.armedSwitches = new Map();
    this.switchExpiries = new ExpiryIndex();
    for (const sw of armed) this.armSwitch(sw);
  }

  /** Copies of the armed switches (memory()). */
  rows(): SwitchRow[] {
    return [...this.armedSwitches.values()].map((sw) => ({ ...sw }));
  }

  /**
   * Arms or refreshes (timeoutSec > 0) or disables (0) a dead-man switch (spec 3). A
   * journaled job like any other: a firing is sequenced wholly before or after it.
   */
  setDeadManSwitch(scope: { accountId: bigint; symbolId: number; side: SwitchRow['side'] }, timeoutSec: number, requestId: string) {
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const armed = timeoutSec > 0;
      const row: SwitchRow = {
        ...scope,
        status: armed ? 'ARMED' : 'DISABLED',
        timeoutSec,
        expiresAtTsNs: armed ? nowNs + BigInt(timeoutSec) * 1_000_000_000n : 0n,
        requestId,
        armedAt: armed ? now : null,
        lastFiredAtTsNs: null,
      };
      ws.switch(row);
      if (armed) this.armSwitch(row);
      else this.disarmSwitch(row);
      return { row, now, nowNs };
    });
  }

  /**
   * Fires every armed switch whose time has passed, also one armed before a restart: its
   * cancels and its disarming are one job, so they commit together or not at all.
   */
  async fireDueSwitches(): Promise<number> {
    const due = this.switchExpiries.due(this.deps.clock.nowNs()).map((key) => this.armedSwitches.get(key) as SwitchRow);
    if (due.length === 0) return 0;
    const refs = due.flatMap((sw) => this.switchMarkets(sw).flatMap((market) => this.deps.refsFor([sw.accountId], market)));
    return this.sequencer.submitAfter(() => this.balances.load(refs), (ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      let fired = 0;
      for (const found of due) {
        const sw = this.armedSwitches.get(switchKey(found));
        // A heartbeat or a disable sequenced since it was found has moved or ended it.
        if (!sw || sw.expiresAtTsNs > nowNs) continue;
        this.deps.cancel(ws, sw.accountId, this.switchMarkets(sw), sw.side === 'ANY' ? undefined : sw.side, 'DEAD_MAN_SWITCH', now, nowNs);
        ws.switch({ ...sw, status: 'DISABLED', timeoutSec: 0, expiresAtTsNs: 0n, armedAt: null, lastFiredAtTsNs: nowNs });
        this.disarmSwitch(sw);
        fired += 1;
      }
      return fired;
    });
  }

  private armSwitch(row: SwitchRow): void {
    this.armedSwitches.set(switchKey(row), row);
    this.switchExpiries.add(switchKey(row), row.expiresAtTsNs);
  }

  private disarmSwitch(row: SwitchRow): void {
    this.armedSwitches.delete(switchKey(row));
    this.switchExpiries.delete(switchKey(row));
  }

  private switchMarkets(sw: SwitchRow): readonly Market[] {
    if (sw.symbolId === 0) return this.deps.markets.markets;
    const market = this.deps.markets.marketById(sw.symbolId);
    return market ? [market] : [];
  }
}
