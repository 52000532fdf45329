import type { ChainTopics } from './chain/index.ts';
import type { ChartTopics } from './chart/index.ts';
import type { TradingTopics } from './trading/index.ts';
import type { WhiteboardTopics } from './whiteboards/index.ts';

/**
 * Every event topic of the process, as the areas that publish them declare them (a name,
 * its key, its payload). Trading's topics are published once their journal entry is
 * committed, from that entry; the others once their change is stored. Only the composition
 * root names this set: each area is handed the bus typed by its own topics (topicBus.ts).
 */
export type TopicMap = TradingTopics & ChainTopics & ChartTopics & WhiteboardTopics;
