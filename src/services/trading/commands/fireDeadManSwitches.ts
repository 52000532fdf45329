import type { TradingContext } from '../context.ts';

/** Fires every armed switch whose time has passed, also after a restart (run on a timer). */
export function fireDeadManSwitches(ctx: TradingContext): Promise<number> {
  return ctx.engine.fireDueSwitches();
}
