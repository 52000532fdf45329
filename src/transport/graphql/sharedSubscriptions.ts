import { getOperationAST, Kind, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { subscriberTooSlow, type SubscriberLimits } from '../../services/publications.ts';
import { toGraphQLError } from './errors.ts';

/**
 * The subscription fields whose events are the same for every caller: nothing they execute
 * reads the caller, so one execution of an event serves every socket with the same
 * selection. A private stream (orders, fills, balances, trigger events, flows, chart) is
 * never listed here: it is filtered by its topic's key (the account) before it executes,
 * and each subscription executes its own events under its own credential.
 */
const SHARED_SUBSCRIPTION_FIELDS: ReadonlySet<string> = new Set(['publicTrades', 'orderBookUpdates']);

/** A graphql-ws socket as the shared path writes to it. */
export interface FrameSocket {
  /** Bytes handed to the socket that the kernel has not taken yet. */
  readonly bufferedAmount: number;
  send(frame: string, sent: (err?: Error) => void): void;
  /** Holds what `send` writes until `uncork`, so a batch of frames is one system call. */
  cork(): void;
  uncork(): void;
}

/**
 * How often a busy selection writes to its sockets. A socket write is a system call that
 * cost more here than executing the event (20 to 50 µs on these machines), so at 100
 * trades/s one write per event per socket saturated the process with 1,000 sockets
 * (order p50 from 3 ms to seconds, BENCHMARKS.md). A selection idle for this long sends its
 * next event at once; events that follow within the interval go out together at its end,
 * each still its own `next` message. Exchanges pace public market data the same way
 * (depth and trade streams at 100 ms).
 */
export const FAN_OUT_INTERVAL_MS = 100;
/** Sockets written per turn of the event loop: requests waiting meanwhile are served between turns. */
const FAN_OUT_CHUNK = 10;

/** What one document asks for, as graphql-ws received it. */
export interface Selection {
  document: DocumentNode;
  operationName?: string | null | undefined;
  variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/** The execution of one selection: its results, or the result that refused it (a bad argument). */
export type Started = AsyncIterable<ExecutionResult> | ExecutionResult;

/**
 * Public subscriptions over graphql-ws, shared by selection (docs/scaling.md, "Shared
 * subscriptions"): the first socket to ask for a selection (document, operation,
 * variables) starts one execution of it; every event is executed once, its result
 * serialised once, and each socket with that selection is sent the same text behind its
 * own subscription id. The last socket to leave stops the execution. A socket that falls
 * behind by more than the subscriber limits is cut off with SUBSCRIBER_TOO_SLOW, alone.
 */
export class SharedSubscriptions {
  private readonly selections = new Map<string, SharedSelection>();
  private results = 0;

  constructor(private readonly limits: SubscriberLimits) {}

  /** The key of a selection every socket may share, or undefined when it is not one. */
  keyOf(selection: Selection): string | undefined {
    const operation = getOperationAST(selection.document, selection.operationName);
    if (operation?.operation !== 'subscription') return undefined;
    const fields = operation.selectionSet.selections;
    if (!fields.every((f) => f.kind === Kind.FIELD && SHARED_SUBSCRIPTION_FIELDS.has(f.name.value))) return undefined;
    return `${selection.operationName ?? ''}\n${printed(selection.document)}\n${canonicalJson(selection.variables ?? {})}`;
  }

  /**
   * Adds subscription `id` of `socket` to the selection's execution, which `start` begins
   * when the socket is the selection's first. Answers what graphql-ws holds for the
   * subscription: a stream that yields nothing (the frames go to the socket directly) and
   * ends when the execution does or the socket falls behind; or the result that refused
   * the selection, sent as that socket's only message.
   */
  async join(key: string, start: () => Promise<Started>, socket: FrameSocket, id: string): Promise<AsyncGenerator<never> | ExecutionResult> {
    let selection = this.selections.get(key);
    if (!selection) {
      selection = new SharedSelection(() => {
        if (this.selections.get(key) === selection) this.selections.delete(key);
      }, () => (this.results += 1));
      this.selections.set(key, selection);
      selection.start(start);
    }
    return selection.join(new Sink(socket, id, this.limits));
  }

  /** Selections being executed, sockets' subscriptions on them, and results executed so far. */
  get stats(): { selections: number; sinks: number; executions: number } {
    let sinks = 0;
    for (const s of this.selections.values()) sinks += s.size;
    return { selections: this.selections.size, sinks, executions: this.results };
  }
}

class SharedSelection {
  private readonly sinks = new Set<Sink>();
  private upstream: AsyncIterator<ExecutionResult> | undefined;
  private ready!: Promise<ExecutionResult | undefined>;
  private closed = false;
  /** Payloads executed and not yet written, oldest first. */
  private unsent: string[] = [];
  private lastFanOutAt = -Infinity;
  /** The fan-out scheduled or running; the next waits for it, so sockets get events in order. */
  private fanningOut: Promise<void> | undefined;

  constructor(
    private readonly forget: () => void,
    private readonly executed: () => void,
  ) {}

  get size(): number {
    return this.sinks.size;
  }

  start(start: () => Promise<Started>): void {
    this.ready = start().then(
      (started) => {
        if (!isIterable(started)) {
          this.close();
          return started;
        }
        const upstream = started[Symbol.asyncIterator]();
        this.upstream = upstream;
        if (this.closed) void upstream.return?.();
        else void this.pump(upstream);
        return undefined;
      },
      (err: unknown) => {
        this.close();
        throw err;
      },
    );
  }

  async join(sink: Sink): Promise<AsyncGenerator<never> | ExecutionResult> {
    // Counted at once, so that a socket leaving while the execution starts does not stop it
    // under another that is waiting for it.
    this.sinks.add(sink);
    sink.onLeave(() => this.leave(sink));
    try {
      const refused = await this.ready;
      if (refused) {
        this.sinks.delete(sink);
        return refused;
      }
    } catch (err) {
      this.sinks.delete(sink);
      throw err;
    }
    return sink;
  }

  private leave(sink: Sink): void {
    this.sinks.delete(sink);
    if (this.sinks.size === 0) this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    void this.upstream?.return?.();
  }

  private async pump(upstream: AsyncIterator<ExecutionResult>): Promise<void> {
    try {
      for (let next = await upstream.next(); !next.done; next = await upstream.next()) {
        this.executed();
        this.unsent.push(payloadJson(next.value));
        this.fanningOut ??= this.fanOut();
      }
      await this.fanningOut;
      for (const sink of [...this.sinks]) sink.end(undefined);
    } catch (err) {
      await this.fanningOut;
      // The same error graphql-ws would have got from the socket's own execution.
      for (const sink of [...this.sinks]) sink.end(err);
    }
    this.close();
  }

  /** Writes what is unsent to every socket, at most once per interval, a chunk of sockets a turn. */
  private async fanOut(): Promise<void> {
    // Starts after the caller has stored this promise, which the end below clears: the
    // last check of `unsent` and the clearing are one step, so no event is left behind.
    await Promise.resolve();
    while (this.unsent.length > 0) {
      const wait = this.lastFanOutAt + FAN_OUT_INTERVAL_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.lastFanOutAt = performance.now();
      const payloads = this.unsent;
      this.unsent = [];
      const sinks = [...this.sinks];
      for (let i = 0; i < sinks.length; i += FAN_OUT_CHUNK) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        for (const sink of sinks.slice(i, i + FAN_OUT_CHUNK)) sink.deliver(payloads);
      }
    }
    this.fanningOut = undefined;
  }
}

/** One socket's subscription on a shared selection; graphql-ws holds it as the subscription's stream. */
class Sink implements AsyncGenerator<never> {
  private readonly prefix: string;
  private pending = 0;
  private done = false;
  private failure: unknown;
  private waiting: { resolve: (r: IteratorResult<never>) => void; reject: (err: unknown) => void } | undefined;
  private left: (() => void) | undefined;
  // One callback for every frame: a frame costs no allocation but its text.
  private readonly sent = () => {
    this.pending -= 1;
  };

  constructor(
    private readonly socket: FrameSocket,
    id: string,
    private readonly limits: SubscriberLimits,
  ) {
    this.prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  }

  onLeave(left: () => void): void {
    this.left = left;
  }

  /**
   * Runs on the shared execution's loop: it never throws, whatever the socket does. The
   * bound is checked before a batch, against what earlier batches left unsent: right after
   * a batch even a socket that reads is still taking it.
   */
  deliver(payloads: readonly string[]): void {
    if (this.done) return;
    // What the socket already holds stays there, ahead of the error: its client resumes
    // from the last sequence it read, as from any other cut-off stream.
    if (this.pending > this.limits.maxPendingEvents || this.socket.bufferedAmount > this.limits.maxPendingBytes) {
      this.end(toGraphQLError(subscriberTooSlow(this.limits)));
      return;
    }
    this.socket.cork();
    try {
      for (const payload of payloads) {
        this.pending += 1;
        this.socket.send(`${this.prefix}${payload}}`, this.sent);
      }
    } catch (err) {
      this.end(err);
    } finally {
      this.socket.uncork();
    }
  }

  /** Ends the subscription: completed (no error) or with the error graphql-ws sends as its last message. */
  end(failure: unknown): void {
    if (this.done) return;
    this.done = true;
    this.left?.();
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) this.failure = failure;
    else if (failure === undefined) waiting.resolve({ value: undefined, done: true });
    else waiting.reject(failure);
  }

  [Symbol.asyncIterator](): AsyncGenerator<never> {
    return this;
  }

  next(): Promise<IteratorResult<never>> {
    if (!this.done) return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
    const failure = this.failure;
    this.failure = undefined;
    return failure === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(failure);
  }

  return(): Promise<IteratorResult<never>> {
    this.end(undefined);
    this.failure = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<never>> {
    return this.return();
  }
}

function isIterable(started: Started): started is AsyncIterable<ExecutionResult> {
  return typeof (started as Partial<AsyncIterable<ExecutionResult>>)[Symbol.asyncIterator] === 'function';
}

/** A result as graphql-ws writes a `next` message's payload: errors last, each as its JSON. */
function payloadJson(result: ExecutionResult): string {
  const { errors, ...rest } = result;
  return JSON.stringify({ ...rest, ...(errors ? { errors: errors.map((e) => e.toJSON()) } : {}) });
}

/** A document's printed form, once per parsed document (Yoga's parser caches documents by text). */
const prints = new WeakMap<DocumentNode, string>();
function printed(document: DocumentNode): string {
  let text = prints.get(document);
  if (text === undefined) {
    text = print(document);
    prints.set(document, text);
  }
  return text;
}

/** Variables with their keys in order, so that the same values make the same key. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}
