import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { isResync, markCritical } from '../infra/eventBus.ts';
import type { Caller } from './caller.ts';

/** A credential changed (revoked, policy or IP list or expiry changed, logged out). */
export type CredentialChange = { apiKey: string } | { session: string };

/** A credential as it is now: the caller it authenticates, and until when. */
export interface CredentialState {
  caller: Caller;
  expiresAtMs: number | undefined;
}

export interface CredentialWatchDeps {
  events: TypedEventTarget<CustomEvent>;
  topic: string;
  /** Reads the credential again; throws when it no longer authenticates from `ip`. */
  inspect(caller: Caller, ip: string): Promise<CredentialState>;
  /** Called for every change, before open connections reload (drops cached copies). */
  onChange(change: CredentialChange): void;
  /** Called when changes may have been lost, before every open connection reloads (drops every cached copy). */
  onResync(): void;
  now(): number;
}

const watchKey = (c: Caller | CredentialChange) =>
  'kind' in c ? (c.kind === 'apiKey' ? `k:${c.keyId}` : `s:${c.sessionId}`) : 'apiKey' in c ? `k:${c.apiKey}` : `s:${c.session}`;

/** setTimeout's longest delay; a later expiry is armed again when it passes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The credentials of long-lived connections (graphql-ws sockets, streams), kept current by
 * push instead of polling: a change is published on the event bus, reaches every process
 * (this one synchronously, before the changing request is answered), and each connection
 * of that credential reloads it at once. Until the reload is done, `current()` waits, so
 * nothing is sent on the old permissions after a change is acknowledged.
 */
export class CredentialWatch {
  private readonly live = new Map<string, Set<LiveCredential>>();

  constructor(private readonly deps: CredentialWatchDeps) {
    markCritical(deps.events, deps.topic);
    deps.events.addEventListener(deps.topic, (event: CustomEvent) => this.apply(event.detail as CredentialChange));
  }

  /** Tells every process that a credential changed; call after the change is committed. */
  changed(change: CredentialChange): void {
    this.deps.events.dispatchEvent(new CustomEvent(this.deps.topic, { detail: change }));
  }

  /** Follows `state`'s credential until `release()`. */
  watch(state: CredentialState, ip: string): LiveCredential {
    const key = watchKey(state.caller);
    const credential = new LiveCredential(state, ip, this.deps, () => {
      const set = this.live.get(key);
      set?.delete(credential);
      if (set?.size === 0) this.live.delete(key);
    });
    let set = this.live.get(key);
    if (!set) {
      set = new Set();
      this.live.set(key, set);
    }
    set.add(credential);
    return credential;
  }

  /** Open connections being watched (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.live.values()) n += set.size;
    return n;
  }

  private apply(change: CredentialChange): void {
    // Changes may have been lost on the way (issue 24): which credentials changed is not
    // known, so every open connection reads its own again, failing closed as any reload does.
    if (isResync(change)) {
      this.deps.onResync();
      for (const set of this.live.values()) for (const credential of set) credential.reload();
      return;
    }
    if (!change || typeof change !== 'object') return;
    this.deps.onChange(change);
    for (const credential of this.live.get(watchKey(change)) ?? []) credential.reload();
  }
}

/** One connection's credential: its current caller, or undefined once it is dead. */
export class LiveCredential {
  private state: CredentialState | undefined;
  private pending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<() => void>();
  private released = false;

  constructor(
    state: CredentialState,
    private readonly ip: string,
    private readonly deps: Pick<CredentialWatchDeps, 'inspect' | 'now'>,
    private readonly unregister: () => void,
  ) {
    this.state = state;
    this.armExpiry();
  }

  /** The caller as of now, after any reload in progress; undefined when it no longer authenticates. */
  async current(): Promise<Caller | undefined> {
    if (this.pending) await this.pending;
    return this.currentNow();
  }

  get dead(): boolean {
    return this.state === undefined;
  }

  /** False while a change is being read back: what the credential may do is not known yet. */
  get settled(): boolean {
    return this.pending === undefined;
  }

  /**
   * Runs `fn` when a change arrives (with `settled` false), when it has been read back, and
   * when the credential dies; returns the unsubscribe.
   */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  reload(): void {
    if (this.released || !this.state) return;
    const previous = this.state;
    const loading = this.deps.inspect(previous.caller, this.ip).then(
      (next) => {
        if (this.pending === loading) this.pending = undefined;
        if (this.state) this.state = next;
      },
      () => {
        // No longer authenticates (or cannot be read back): fail closed.
        if (this.pending === loading) this.pending = undefined;
        this.state = undefined;
      },
    );
    this.pending = loading;
    this.notify();
    void loading.then(() => {
      this.armExpiry();
      this.notify();
    });
  }

  release(): void {
    this.released = true;
    clearTimeout(this.timer);
    this.listeners.clear();
    this.unregister();
  }

  private currentNow(): Caller | undefined {
    if (this.state?.expiresAtMs !== undefined && this.state.expiresAtMs <= this.deps.now()) this.state = undefined;
    return this.state?.caller;
  }

  private armExpiry(): void {
    clearTimeout(this.timer);
    const at = this.state?.expiresAtMs;
    if (at === undefined || this.released) return;
    const delay = Math.min(Math.max(0, at - this.deps.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      if (this.currentNow() === undefined) this.notify();
      else this.armExpiry();
    }, delay);
    this.timer.unref();
  }

  private notify(): void {
    for (const fn of [...this.listeners]) fn();
  }
}
