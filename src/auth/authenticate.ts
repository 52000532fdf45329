import { createHash } from 'node:crypto';
import { ApiError, errors } from '../domain/errorCatalogue.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import type { SharedStore } from '../infra/redis.ts';
import { takeSignature, type ApiKeyCaller, type Caller, type Permission, type SessionCaller } from './caller.ts';
import { ipAllowed } from './ipWhitelist.ts';
import { CredentialWatch, type CredentialState } from './credentialWatch.ts';
import { LocalReplayGuard } from './localReplayGuard.ts';
import { signingString, verifyEd25519 } from './signature.ts';

/** What authentication needs of a request, whichever transport carried it. */
export interface AuthRequest {
  method: string;
  /** The request target exactly as sent: path and query. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  ip: string;
}

export interface AuthenticatorOptions {
  db: Db;
  store: SharedStore;
  clock: Clock;
  /** Accepted distance between X-API-TIMESTAMP and the server clock. */
  skewMs?: number;
  /** How long a loaded key may be reused before it is read again. */
  keyCacheMs?: number;
}

export const LAST_USED_HASH = 'apikey:lastUsed';
export const SESSION_TOKEN_PREFIX = 'st_';

const KEY_ID = /^ak_[0-9a-f]{32}$/;
const TIMESTAMP = /^[0-9]{1,16}$/;
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

interface CachedKey {
  loadedAt: number;
  row: {
    id: bigint;
    keyId: string;
    rootAccountId: bigint;
    rootPublicId: string;
    subaccountId: bigint | null;
    status: string;
    expiresAt: Date | null;
    ipWhitelist: string[];
    permissions: Permission[];
  };
  publicKey: Uint8Array;
  /** When this process last recorded the key's use in the shared store. */
  lastUsedWrittenAt: number;
}

/** lastUsedAt is kept to the second: a busy key costs one store write a second, not one a request. */
const LAST_USED_RESOLUTION_MS = 1_000;

export const replayedRequest = () => errors.REPLAYED_REQUEST('this signature was already used');

export function sha256(text: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(text).digest());
}

/** A key that is neither revoked nor expired at `now` (epoch ms). */
function assertUsable(key: CachedKey, now: number): void {
  if (key.row.status !== 'ACTIVE') throw errors.API_KEY_REVOKED('the API key was revoked');
  if (key.row.expiresAt && key.row.expiresAt.getTime() <= now) throw errors.API_KEY_EXPIRED('the API key has expired');
}

function assertAllowedFrom(key: CachedKey, ip: string): void {
  if (!ipAllowed(ip, key.row.ipWhitelist)) {
    throw errors.IP_NOT_ALLOWED('the client address is not in the key’s IP whitelist');
  }
}

export function createAuthenticator(options: AuthenticatorOptions) {
  const { db, store, clock } = options;
  const skewMs = options.skewMs ?? 30_000;
  const keyCacheMs = options.keyCacheMs ?? 1_000;
  const keys = new Map<string, CachedKey>();
  const loading = new Map<string, Promise<CachedKey | undefined>>();
  const localReplays = new LocalReplayGuard();
  /** Bumped when a key changes: a read begun before the change must not refill the cache. */
  const generations = new Map<string, number>();

  /** Concurrent misses for one key share a single read. */
  function loadKey(keyId: string): Promise<CachedKey | undefined> {
    const cached = keys.get(keyId);
    if (cached && Date.now() - cached.loadedAt < keyCacheMs) return Promise.resolve(cached);
    let p = loading.get(keyId);
    if (!p) {
      p = readKey(keyId).finally(() => loading.delete(keyId));
      loading.set(keyId, p);
    }
    return p;
  }

  async function readKey(keyId: string): Promise<CachedKey | undefined> {
    const now = Date.now();
    const generation = generations.get(keyId) ?? 0;
    const row = await db.apiKey.findUnique({
      where: { keyId },
      include: { policy: { select: { permissions: true } }, rootAccount: { select: { publicId: true } } },
    });
    if (!row) {
      keys.delete(keyId);
      return undefined;
    }
    const entry: CachedKey = {
      loadedAt: now,
      row: {
        id: row.id,
        keyId: row.keyId,
        rootAccountId: row.rootAccountId,
        rootPublicId: row.rootAccount.publicId,
        subaccountId: row.subaccountId,
        status: row.status,
        expiresAt: row.expiresAt,
        ipWhitelist: row.ipWhitelist,
        permissions: row.policy?.permissions ?? [],
      },
      publicKey: row.publicKeyEd25519,
      lastUsedWrittenAt: keys.get(keyId)?.lastUsedWrittenAt ?? 0,
    };
    if ((generations.get(keyId) ?? 0) === generation) keys.set(keyId, entry);
    return entry;
  }

  async function authenticateApiKey(req: AuthRequest, keyId: string, timestamp: string, signature: string): Promise<ApiKeyCaller> {
    if (!TIMESTAMP.test(timestamp)) throw errors.INVALID_TIMESTAMP('X-API-TIMESTAMP must be epoch milliseconds');
    const now = clock.now().getTime();
    if (Math.abs(now - Number(timestamp)) > skewMs) {
      // The server's time lets a client correct its clock instead of guessing why it is refused.
      throw errors.TIMESTAMP_OUT_OF_WINDOW(`X-API-TIMESTAMP is more than ${skewMs / 1000} s from the server clock`, {
        extensions: { serverTimeMs: String(now) },
      });
    }
    if (!KEY_ID.test(keyId)) throw errors.UNKNOWN_API_KEY('unknown API key');
    const key = await loadKey(keyId);
    if (!key) throw errors.UNKNOWN_API_KEY('unknown API key');
    const message = Buffer.from(signingString(timestamp, req.method, req.target, req.rawBody), 'utf8');
    const signatureBytes = Buffer.from(signature, 'base64');
    // Only the canonical spelling: the last base64 character carries 4 unused bits, so 16
    // spellings decode to the same bytes, and the replay guard below is keyed on the text.
    if (!BASE64_SIGNATURE.test(signature) || signatureBytes.toString('base64') !== signature || !verifyEd25519(key.publicKey, message, signatureBytes)) {
      throw errors.INVALID_SIGNATURE('X-API-SIGNATURE does not verify');
    }
    assertUsable(key, now);
    // The signature is claimed later, in the request's one Redis call (see PendingSignature).
    const replayKey = `sig:${signature}`;
    if (localReplays.has(replayKey)) throw replayedRequest();
    const touch = now - key.lastUsedWrittenAt >= LAST_USED_RESOLUTION_MS;
    if (touch) key.lastUsedWrittenAt = now;
    assertAllowedFrom(key, req.ip);
    return {
      kind: 'apiKey',
      rootAccountId: key.row.rootAccountId,
      rootPublicId: key.row.rootPublicId,
      keyId,
      keyDbId: key.row.id,
      ...(key.row.subaccountId !== null ? { subaccountId: key.row.subaccountId } : {}),
      permissions: new Set(key.row.permissions),
      signature: {
        key: replayKey,
        ttlMs: 2 * skewMs + 1_000,
        ...(touch ? { lastUsed: { hash: LAST_USED_HASH, field: keyId, value: String(now) } } : {}),
        claimed: false,
      },
    };
  }

  async function inspect(caller: Caller, ip: string): Promise<CredentialState> {
    if (caller.kind === 'session') {
      const session = await db.session.findUnique({ where: { id: caller.sessionId }, select: { revokedAt: true, expiresAt: true } });
      if (!session || session.revokedAt || session.expiresAt <= clock.now()) throw errors.INVALID_SESSION('unknown or expired session');
      return { caller, expiresAtMs: session.expiresAt.getTime() };
    }
    const key = await loadKey(caller.keyId);
    if (!key) throw errors.UNKNOWN_API_KEY('unknown API key');
    assertUsable(key, clock.now().getTime());
    assertAllowedFrom(key, ip);
    const { signature: _used, subaccountId: _scope, ...rest } = caller;
    return {
      caller: {
        ...rest,
        ...(key.row.subaccountId !== null ? { subaccountId: key.row.subaccountId } : {}),
        permissions: new Set(key.row.permissions),
      },
      expiresAtMs: key.row.expiresAt?.getTime(),
    };
  }

  const watcher = new CredentialWatch({
    events: store.events,
    topic: `${store.keyPrefix}credentials`,
    inspect,
    onChange(change) {
      if ('apiKey' in change) {
        generations.set(change.apiKey, (generations.get(change.apiKey) ?? 0) + 1);
        keys.delete(change.apiKey);
        loading.delete(change.apiKey);
      }
    },
    onResync() {
      for (const keyId of keys.keys()) generations.set(keyId, (generations.get(keyId) ?? 0) + 1);
      for (const keyId of loading.keys()) generations.set(keyId, (generations.get(keyId) ?? 0) + 1);
      keys.clear();
      loading.clear();
    },
    now: () => clock.now().getTime(),
  });

  async function authenticateSession(token: string): Promise<SessionCaller> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) throw errors.INVALID_SESSION('unknown or expired session');
    const session = await db.session.findUnique({
      where: { tokenHash: sha256(token) },
      include: { account: { select: { publicId: true, kind: true } } },
    });
    const now = clock.now();
    if (!session || session.revokedAt || session.expiresAt <= now || session.account.kind !== 'ROOT') {
      throw errors.INVALID_SESSION('unknown or expired session');
    }
    return { kind: 'session', rootAccountId: session.accountId, rootPublicId: session.account.publicId, sessionId: session.id };
  }

  return {
    /** The caller, or undefined when the request carries no credentials at all. */
    async authenticate(req: AuthRequest): Promise<Caller | undefined> {
      const h = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const authorization = h('authorization');
      const keyId = h('x-api-key-id');
      const timestamp = h('x-api-timestamp');
      const signature = h('x-api-signature');
      const anyKeyHeader = keyId !== undefined || timestamp !== undefined || signature !== undefined;
      if (authorization !== undefined && anyKeyHeader) {
        throw errors.AMBIGUOUS_CREDENTIALS('send either a session token or API key headers, not both');
      }
      if (anyKeyHeader) {
        if (keyId === undefined || timestamp === undefined || signature === undefined) {
          throw errors.INCOMPLETE_SIGNATURE('X-API-KEY-ID, X-API-TIMESTAMP and X-API-SIGNATURE go together');
        }
        return authenticateApiKey(req, keyId, timestamp, signature);
      }
      if (authorization !== undefined) {
        const match = /^Bearer ([A-Za-z0-9_-]{1,256})$/.exec(authorization);
        if (!match) throw errors.INVALID_SESSION('Authorization must be "Bearer <sessionToken>"');
        return authenticateSession(match[1] as string);
      }
      return undefined;
    },
    /**
     * Claims the signature of a request that charges no bucket (a read), before it reads
     * anything. While the shared store is away the claim is kept by this process instead:
     * reads keep working, and the signature is still refused a second time here.
     */
    async claimSignature(caller: Caller | undefined): Promise<void> {
      const pending = takeSignature(caller);
      if (!pending) return;
      let fresh: boolean;
      if (!store.available) {
        fresh = localReplays.claim(pending.key, pending.ttlMs);
      } else {
        try {
          const [first] = await Promise.all([
            store.setIfAbsent(pending.key, '1', pending.ttlMs),
            pending.lastUsed ? store.hashSet(pending.lastUsed.hash, { [pending.lastUsed.field]: pending.lastUsed.value }) : undefined,
          ]);
          fresh = first;
        } catch {
          fresh = localReplays.claim(pending.key, pending.ttlMs);
        }
      }
      if (!fresh) throw replayedRequest();
    },
    /**
     * Whether a caller authenticated earlier may still act now (a long-lived graphql-ws
     * connection): its key still active, unexpired, allowed from `ip`, with the permissions
     * its policy has now; its session still open. Throws what a new request would get.
     */
    inspect,
    /** Follows a connection's credential: changes reach it by push (see CredentialWatch). */
    watch: (state: CredentialState, ip: string) => watcher.watch(state, ip),
    /** Connections whose credential is being followed (metrics, leak checks). */
    get watching(): number {
      return watcher.size;
    },
    /** After a key's change is committed: every process drops it and its connections reload it. */
    keyChanged(keyId: string) {
      watcher.changed({ apiKey: keyId });
    },
    /** After a session is ended (logout): its connections close in every process. */
    sessionEnded(sessionId: bigint) {
      watcher.changed({ session: String(sessionId) });
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
