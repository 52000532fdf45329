import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { ChainAdapter } from '../../infra/chain/adapter.ts';
import type { MarketCatalog } from '../markets.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TermsService } from '../terms.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { TradingEngine } from '../trading/index.ts';
import type { TopicBus } from '../topicBus.ts';
import type { FlowView } from './flowView.ts';

/** What the chain operations (deposit addresses, and later flows and withdrawals) use. */
export interface ChainContext {
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  limiter: RateLimiter;
  terms: TermsService;
  chain: ChainAdapter;
  pageTokens: PageTokens;
  /** Money moves only through the engine (its public interface). */
  engine: Pick<TradingEngine, 'flowJob' | 'readable' | 'flushed' | 'submitWithdrawal' | 'endWithdrawal' | 'markWithdrawalSubmitted'>;
  systemAccounts: { custody: bigint; fees: bigint };
  /** The domain a wallet's withdrawal authorization names (the sign-in domain). */
  authorizationDomain: string;
  /** The simulated chain's block interval: confirmations arrive one per block. */
  blockMs: number;
  /** Flow changes are published after each is stored, on the `flows` topic of their root account. */
  topics: TopicBus<ChainTopics>;
}

/** One stored change of a flow, for `flowUpdates`. */
export interface FlowEvent {
  ownerAccountId: string;
  flow: FlowView;
}

/** The chain's topic: the flows of a root account and its subaccounts, keyed by the root's public id. */
export interface ChainTopics {
  flows: { key: string; payload: FlowEvent };
}
