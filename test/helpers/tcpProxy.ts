import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test puts between the service and PostgreSQL, to do to the connections
 * what a network fault or a database failover does: reset every one of them at once.
 */
export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly server: Server;

  private constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
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

  /** Resets every connection open now, both ways (RST); new ones get through. */
  reset(): void {
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
