/** The rate-limit catalog and an account's effective limits: one type a file. */
import './rateLimitCatalog.ts';
import './tradingRateLimits.ts';
