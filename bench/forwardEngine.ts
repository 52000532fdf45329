import { Redis } from 'ioredis';

/**
 * The engine-owner side of bench/forward.bench.ts, in a process of its own: reads forwarded
 * commands from a Redis stream with a consumer group, answers each on the reply stream its
 * sender named, then acknowledges them (what an engine owner behind API nodes would do,
 * minus the work itself).
 */
const [url, stream, group] = process.argv.slice(2) as [string, string, string];
const reader = new Redis(url);
const writer = new Redis(url);
await reader.xgroup('CREATE', stream, group, '$', 'MKSTREAM').catch(() => undefined);
process.send?.('ready');
for (;;) {
  const got = (await reader.xreadgroup('GROUP', group, 'engine', 'COUNT', 256, 'BLOCK', 0, 'STREAMS', stream, '>')) as [string, [string, string[]][]][] | null;
  if (!got) continue;
  const pipeline = writer.pipeline();
  const ids: string[] = [];
  for (const [, entries] of got) {
    for (const [id, fields] of entries) {
      ids.push(id);
      const reply = fields[1] as string;
      if (reply === 'stop') process.exit(0);
      pipeline.xadd(reply, 'MAXLEN', '~', 10_000, '*', 'id', fields[3] as string, 'ok', '1');
    }
  }
  pipeline.xack(stream, group, ...ids);
  await pipeline.exec();
}
