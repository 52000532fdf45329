import { fork } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SAMPLES = 3_000;

/** A signed order's body, about as large as the API node would forward with its verdict. */
const PAYLOAD = JSON.stringify({ order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', clientOrderId: 'x'.repeat(32), limitGtc: { price: '30000' } }, caller: { accountId: '123456789', apiKeyId: 'k'.repeat(26), permissions: ['READ', 'TRADE'] } });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function redisCpuTicks(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  return sys + user;
}

/**
 * The next step beyond one process (docs/scaling.md): API nodes forward each command to
 * the engine owner over a Redis stream and wait for its answer on a reply stream. What
 * that hop costs, against a bare PING round trip in the same run: one command at a time
 * (latency) and 64 in flight (throughput, and Redis CPU per command).
 */
export async function run(): Promise<string> {
  const tag = `bench:fwd:${process.pid}`;
  const stream = `${tag}:cmd`;
  const replies = `${tag}:reply`;
  const engine = fork(path.join(import.meta.dirname, 'forwardEngine.ts'), [REDIS_URL, stream, 'engine'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  await new Promise<void>((resolve) => engine.once('message', () => resolve()));
  const client = new Redis(REDIS_URL);
  const listener = new Redis(REDIS_URL);
  const waiting = new Map<string, () => void>();
  let lastReply = '$';
  let listening = true;
  const listen = (async () => {
    while (listening) {
      const got = (await listener.xread('COUNT', 512, 'BLOCK', 200, 'STREAMS', replies, lastReply)) as [string, [string, string[]][]][] | null;
      for (const [, entries] of got ?? []) {
        for (const [id, fields] of entries) {
          lastReply = id;
          waiting.get(fields[1] as string)?.();
          waiting.delete(fields[1] as string);
        }
      }
    }
  })();
  let n = 0;
  const forward = () =>
    new Promise<void>((resolve) => {
      const id = String(n++);
      waiting.set(id, resolve);
      void client.xadd(stream, 'MAXLEN', '~', 10_000, '*', 'reply', replies, 'id', id, 'body', PAYLOAD);
    });

  const timed = async (fn: () => Promise<unknown>) => {
    for (let i = 0; i < 300; i++) await fn();
    const out: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      await fn();
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  };
  const ping = await timed(() => client.ping());
  const fwd = await timed(forward);

  const admin = new Redis(REDIS_URL);
  const cpuBefore = await redisCpuTicks(admin);
  const t0 = performance.now();
  const total = 20_000;
  let started = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (started < total) {
        started++;
        await forward();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const redisCpuPerCmdUs = ((await redisCpuTicks(admin)) - cpuBefore) / total * 1e6;

  listening = false;
  await listen;
  await client.xadd(stream, '*', 'reply', 'stop', 'id', 'stop');
  await new Promise((r) => engine.once('exit', r));
  await admin.del(stream, replies);
  for (const c of [client, listener, admin]) c.disconnect();

  const f = (x: number) => x.toFixed(2);
  return [
    '### Forwarding a command to the engine owner over Redis Streams (bench/forward.bench.ts)',
    '',
    `An API node XADDs each command (${PAYLOAD.length} B) to a stream; the engine owner, a second process, reads it with XREADGROUP (up to 256 at a time), answers on the sender's reply stream and XACKs, pipelined; the API node reads its replies with one blocking XREAD loop. The work itself is left out: this is the hop's cost.`,
    '',
    '| case | p50 ms | p99 ms | ratio p50 to PING |',
    '|---|---:|---:|---:|',
    `| baseline: PING round trip | ${f(percentile(ping, 50))} | ${f(percentile(ping, 99))} | 1.00 |`,
    `| forwarded command, answered (one in flight) | ${f(percentile(fwd, 50))} | ${f(percentile(fwd, 99))} | ${(percentile(fwd, 50) / percentile(ping, 50)).toFixed(2)} |`,
    '',
    `64 in flight: ${Math.round(total / seconds).toLocaleString('en-US')} commands/s through one Redis; Redis CPU ${Math.round(redisCpuPerCmdUs)} µs per command (three writes: the command, the reply, the ack).`,
  ].join('\n');
}
