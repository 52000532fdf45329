import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TEST_DATABASE_URL } from './env.ts';
import { dropSchema, TEST_OPERATOR_TOKEN, uniqueName } from './infra.ts';
import { freePort } from './redisServer.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** src/main.ts as a child process on PostgreSQL (its own schema) and the given Redis. */
export class ServiceProcess {
  readonly stderr: string[] = [];
  exitCode: number | null | undefined;
  private readonly exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stderr?.on('data', (chunk) => this.stderr.push(String(chunk)));
    child.stdout?.on('data', () => undefined);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
  }

  static start(options: { port: number; schema: string; redisUrl: string; env?: Record<string, string> }): ServiceProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_SCHEMA: options.schema,
        REDIS_URL: options.redisUrl,
        REDIS_KEY_PREFIX: `${options.schema}:`,
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
        TRUST_PROXY: 'true',
        // As in testConfig: a stalled loop on a busy test machine is not a Redis outage.
        RATE_LIMIT_TIMEOUT_MS: '1000',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child, `http://127.0.0.1:${options.port}`);
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Waits until /healthz answers (the process listens). */
  async listening(deadlineMs = 30_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      if (!this.running) throw new Error(`exited with ${this.exitCode}: ${this.stderr.join('')}`);
      try {
        if ((await fetch(`${this.url}/healthz`)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) throw new Error('the service did not start listening');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until /readyz answers 200: it listens, and its database, Redis and trading engine serve. */
  async ready(deadlineMs = 30_000): Promise<this> {
    await this.listening(deadlineMs);
    const until = Date.now() + deadlineMs;
    for (;;) {
      if ((await fetch(`${this.url}/readyz`).then((r) => r.status, () => 0)) === 200) return this;
      if (!this.running) throw new Error(`exited with ${this.exitCode}: ${this.stderr.join('')}`);
      if (Date.now() > until) throw new Error('the service did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    return this.exited;
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

/**
 * One service a crash test kills and starts again, always on the same port, schema and
 * Redis: `start()` answers once it is ready; `dispose()` (in afterAll) kills whatever is
 * left and drops the schema.
 */
export class RestartableService {
  private readonly started: ServiceProcess[] = [];
  private port: number | undefined;

  readonly schema: string;

  constructor(
    name: string,
    private readonly options: { redisUrl: string; env?: Record<string, string> },
  ) {
    this.schema = uniqueName(name);
  }

  async start(): Promise<ServiceProcess> {
    this.port ??= await freePort();
    const p = ServiceProcess.start({ port: this.port, schema: this.schema, redisUrl: this.options.redisUrl, ...(this.options.env ? { env: this.options.env } : {}) });
    this.started.push(p);
    return p.ready();
  }

  async dispose(): Promise<void> {
    for (const p of this.started) p.kill();
    await dropSchema(this.schema);
  }
}
