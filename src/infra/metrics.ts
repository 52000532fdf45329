import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one server instance (its own registry, so tests can run several). */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'operation' | 'method' | 'status'>;
  private readonly latency: Histogram<'operation' | 'method'>;
  private readonly projection: Histogram;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'Requests served, per operation and status',
      labelNames: ['operation', 'method', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent, per operation',
      labelNames: ['operation', 'method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.projection = new Histogram({
      name: 'trading_projection_lag_seconds',
      help: 'Time from a trading journal entry being durable (its acknowledgement) to the read tables reflecting it',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [this.registry],
    });
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  observe(operation: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ operation, method, status: String(status) });
    this.latency.observe({ operation, method }, seconds);
  }

  /**
   * What open streams hold, read at each scrape: subscriptions listening for events,
   * credentials followed for open connections, streaming connections, public selections
   * executed once for many graphql-ws sockets and those sockets' subscriptions on them
   * (each selection holds one listener). Each returns to its
   * baseline when the clients leave (test/e2e/stream-leaks.test.ts).
   */
  streams(read: () => Record<'listeners' | 'credential_watches' | 'connections' | 'shared_selections' | 'shared_subscriptions', number>): void {
    new Gauge({
      name: 'stream_resources',
      help: 'Resources held by open streams: event listeners, followed credentials, streaming connections, shared selections and the subscriptions on them',
      labelNames: ['resource'],
      registers: [this.registry],
      collect() {
        for (const [resource, value] of Object.entries(read())) this.set({ resource }, value);
      },
    });
  }

  /** One journal entry's projection lag. */
  projectionLag(seconds: number): void {
    this.projection.observe(seconds);
  }

  /**
   * The trading projection's quarantine, read at each scrape: how many entries are parked,
   * and one series per entry that failed itself, named by its journal sequence and
   * SQLSTATE (its error text is in the log line and in /readyz, not in a label).
   */
  watchQuarantine(parked: () => readonly { seq: bigint; sqlState: string | null; behindSeq: bigint | null }[]): void {
    new Gauge({
      name: 'trading_projection_quarantined_entries',
      help: 'Trading journal entries parked by the projection (failed, or waiting behind one that failed); 0 when the read tables hold every entry',
      registers: [this.registry],
      collect() {
        this.set(parked().length);
      },
    });
    new Gauge({
      name: 'trading_projection_quarantined_entry',
      help: 'One series per trading journal entry the projection could not apply (1 while it is parked), by journal sequence and SQLSTATE',
      labelNames: ['seq', 'sql_state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const e of parked()) if (e.behindSeq === null) this.set({ seq: e.seq.toString(), sql_state: e.sqlState ?? '' }, 1);
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
