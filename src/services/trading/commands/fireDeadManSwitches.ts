import { switchKey, type TradingContext } from '../context.ts';

/** Fires every armed switch whose time has passed, also after a restart (run on a timer). */
export async function fireDeadManSwitches(ctx: TradingContext): Promise<number> {
  const nowNs = ctx.clock.nowNs();
  const due = await ctx.db.deadManSwitch.findMany({ where: { status: 'ARMED', expiresAtTsNs: { lte: nowNs } }, select: { id: true, accountId: true, symbolId: true, side: true } });
  let fired = 0;
  for (const found of due) {
    // One switch at a time with its heartbeats (switchLock): a heartbeat or disable that
    // lands first is seen by the re-read below, and one that lands during the firing is
    // answered only after it, so nothing placed after a client was told its switch was
    // refreshed or disabled is canceled by the old deadline.
    fired += await ctx.switches.run(switchKey(found), async () => {
      const sw = await ctx.db.deadManSwitch.findUnique({ where: { id: found.id } });
      const firedAt = ctx.clock.nowNs();
      if (!sw || sw.status !== 'ARMED' || sw.expiresAtTsNs > firedAt) return 0;
      // Cancel, then disarm: a crash in between fires the switch again after the restart
      // (at least once), where disarming first could leave it off with the orders live.
      const market = sw.symbolId === 0 ? undefined : ctx.markets.marketById(sw.symbolId);
      await ctx.engine.cancelWhere(sw.accountId, market, sw.side === 'ANY' ? undefined : sw.side, 'DEAD_MAN_SWITCH');
      await ctx.db.deadManSwitch.updateMany({
        where: { id: sw.id, status: 'ARMED', expiresAtTsNs: sw.expiresAtTsNs },
        data: { status: 'DISABLED', timeoutSec: 0, expiresAtTsNs: 0n, lastFiredAtTsNs: firedAt },
      });
      return 1;
    });
  }
  return fired;
}
