import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test puts between the service and PostgreSQL, to do to the connections
 * what a network fault or a database failover does: reset every one of them at once, or
 * blackhole them (a partition that drops packets and sends no reset).
 */
export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly server: Server;
  private blackholed = false;
  /** Connections accepted during a blackhole: neither read nor forwarded until it ends. */
  private readonly held = new Set<Socket>();
  /** Pairs one side of which closed during a blackhole: the other side learns it once the network is back. */
  private readonly broken = new Set<[Socket, Socket]>();

  private constructor(private readonly target: { host: string; port: number }) {
    // Paused until forwarded: a connection accepted during a blackhole reads nothing.
    this.server = createServer({ pauseOnConnect: true }, (client) => {
      if (this.blackholed) {
        this.held.add(client);
        client.on('error', () => undefined);
        return;
      }
      this.forward(client);
    });
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /**
   * A network partition that resets: every connection is reset now, and new ones are reset
   * as they arrive, until `unblock()`.
   */
  block(): void {
    if (this.blocking) return;
    this.blocking = (socket: Socket) => socket.resetAndDestroy();
    this.server.on('connection', this.blocking);
    this.reset();
  }

  unblock(): void {
    if (this.blocking) this.server.off('connection', this.blocking);
    this.blocking = undefined;
  }

  private blocking: ((socket: Socket) => void) | undefined;

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** How many connections go through it now. */
  get connections(): number {
    return this.pairs.size;
  }

  private forward(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const drop = () => {
      // A partition carries no FIN or RST either: the other side hears of it after.
      if (this.blackholed) {
        this.broken.add(pair);
        return;
      }
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Resets every connection open now, both ways (RST); new ones get through. */
  reset(): void {
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.pairs.clear();
  }

  /**
   * Stops forwarding and reading, both ways, on every connection, and holds new ones
   * unanswered: whatever either side sends meanwhile stays in the kernels' buffers (which
   * fill, and then stop the sender), and no side hears of a close. What was sent is
   * delivered after `restore`, late, as a retransmission after a partition is.
   */
  blackhole(): void {
    this.blackholed = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Ends a blackhole: forwarding resumes where it stopped, and held connections get through. */
  restore(): void {
    this.blackholed = false;
    for (const pair of this.pairs) {
      const [client, upstream] = pair;
      if (this.broken.has(pair)) {
        this.pairs.delete(pair);
        client.resetAndDestroy();
        upstream.resetAndDestroy();
        continue;
      }
      client.pipe(upstream);
      upstream.pipe(client);
    }
    this.broken.clear();
    for (const client of this.held) this.forward(client);
    this.held.clear();
  }

  async close(): Promise<void> {
    this.reset();
    for (const client of this.held) client.destroy();
    this.held.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
