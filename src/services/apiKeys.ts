import { LAST_USED_HASH, type Authenticator } from '../auth/authenticate.ts';
import { isUsableEd25519PublicKey } from '../auth/signature.ts';
import { actorLabel, PERMISSIONS, type Caller, type Permission } from '../auth/caller.ts';
import { normalizeCidr } from '../auth/ipWhitelist.ts';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { newApiKeyId, newPublicId } from '../domain/ids.ts';
import type { ApiKey, ApiPolicy } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { isUniqueViolation } from '../infra/databaseErrors.ts';
import type { SharedStore } from '../infra/redis.ts';
import { requirePermission, requireSession, resolveAccount } from './access.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, PageTokens, pageLimit, toPage } from './pageTokens.ts';
import type { TermsService } from './terms.ts';
import type { RateLimiter } from './rateLimits.ts';

export const API_KEY_LABEL_MAX = 64;
export const IP_WHITELIST_MAX = 32;
export const POLICY_NAME_MAX = 64;

export interface ApiKeyView {
  keyId: string;
  label: string;
  icon: string;
  color: string;
  ipWhitelist: string[];
  status: 'ACTIVE' | 'REVOKED';
  subaccountId: string;
  policyId: string;
  createdAt: Date;
  lastUsedAt?: Date;
  publicKeyEd25519: Uint8Array;
  expiresAt?: Date;
  createdByActor: string;
  updatedAt: Date;
  revision: bigint;
}

export interface ApiPolicyView {
  policyId: string;
  name: string;
  permissions: Permission[];
  createdAt: Date;
}

export interface CreateApiKeyInput {
  label: string;
  publicKeyEd25519: Uint8Array;
  color?: string;
  icon?: string;
  ipWhitelist?: string[];
  subaccountId?: string;
  policyId?: string;
  expiresAt?: Date;
}

export interface UpdateApiKeyInput {
  expectedRevision: bigint;
  label?: string;
  icon?: string;
  color?: string;
  ipWhitelist?: string[];
  /** "" detaches the policy. */
  policyId?: string;
  /** null removes the expiry. */
  expiresAt?: Date | null;
}

type KeyRow = ApiKey & { subaccount: { publicId: string } | null; policy: { policyId: string } | null };
const KEY_INCLUDE = { subaccount: { select: { publicId: true } }, policy: { select: { policyId: true } } } as const;

/**
 * API keys (spec 2.4, 4.2) and the policies that grant them permissions. Keys are
 * managed only with a wallet session; a key may read keys within its own scope.
 */
export function createApiKeyService(deps: {
  db: Db;
  clock: Clock;
  store: SharedStore;
  pageTokens: PageTokens;
  terms: TermsService;
  authenticator: Authenticator;
  limiter: RateLimiter;
}) {
  const { db, clock, store, pageTokens, terms, authenticator, limiter } = deps;

  async function render(rows: KeyRow[]): Promise<ApiKeyView[]> {
    // While Redis is away the listing still answers, with the last use PostgreSQL has.
    const recent = await store.hashGet(LAST_USED_HASH, rows.map((r) => r.keyId)).catch(() => [] as (string | undefined)[]);
    return rows.map((r, i) => {
      const fromStore = recent[i] !== undefined ? new Date(Number(recent[i])) : undefined;
      const lastUsedAt =
        fromStore && (!r.lastUsedAt || fromStore > r.lastUsedAt) ? fromStore : (r.lastUsedAt ?? undefined);
      return {
        keyId: r.keyId,
        label: r.label,
        icon: r.icon ?? '',
        color: r.color ?? '',
        ipWhitelist: r.ipWhitelist,
        status: r.status,
        subaccountId: r.subaccount?.publicId ?? '',
        policyId: r.policy?.policyId ?? '',
        createdAt: r.createdAt,
        ...(lastUsedAt ? { lastUsedAt } : {}),
        publicKeyEd25519: r.publicKeyEd25519,
        ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
        createdByActor: r.createdByActor,
        updatedAt: r.updatedAt,
        revision: r.revision,
      };
    });
  }

  function checkLabel(label: string): string {
    if (label.length < 1 || label.length > API_KEY_LABEL_MAX) {
      throw invalidArgument('label', `must be 1 to ${API_KEY_LABEL_MAX} characters`, 'length');
    }
    return label;
  }

  function checkToken(field: 'icon' | 'color', value: string): string {
    if (value.length > 32) throw invalidArgument(field, 'must be at most 32 characters', 'length');
    return value;
  }

  function checkWhitelist(entries: string[]): string[] {
    if (entries.length > IP_WHITELIST_MAX) {
      throw invalidArgument('ipWhitelist', `must have at most ${IP_WHITELIST_MAX} entries`, 'max-items');
    }
    const seen = new Set<string>();
    return entries.map((entry, i) => {
      const cidr = normalizeCidr(entry);
      if (!cidr) throw invalidArgument(`ipWhitelist[${i}]`, 'must be an IPv4 or IPv6 CIDR', 'cidr');
      if (seen.has(cidr)) throw invalidArgument(`ipWhitelist[${i}]`, 'repeats an earlier entry', 'unique');
      seen.add(cidr);
      return cidr;
    });
  }

  function checkExpiry(expiresAt: Date, now: Date): Date {
    if (expiresAt <= now) throw invalidArgument('expiresAt', 'must be in the future', 'future');
    return expiresAt;
  }

  async function policyIdOf(caller: Caller, policyId: string): Promise<bigint> {
    const policy = await db.apiPolicy.findFirst({
      where: { policyId, ownerAccountId: caller.rootAccountId },
      select: { id: true },
    });
    if (!policy) {
      throw new ApiError('not-found', 'API policy not found', {
        code: 'API_POLICY_NOT_FOUND',
        violations: [{ fieldPath: 'policyId', message: 'no such policy', ruleId: 'exists' }],
      });
    }
    return policy.id;
  }

  /** Keys the caller may see: all of its root's, or those of a scoped key's subaccount. */
  function visibleKeysWhere(caller: Caller) {
    const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
    return { rootAccountId: caller.rootAccountId, ...(scoped !== undefined ? { subaccountId: scoped } : {}) };
  }

  async function findVisible(caller: Caller, keyId: string): Promise<KeyRow> {
    const row = /^ak_[0-9a-f]{32}$/.test(keyId)
      ? await db.apiKey.findFirst({ where: { keyId, ...visibleKeysWhere(caller) }, include: KEY_INCLUDE })
      : null;
    if (!row) throw new ApiError('not-found', 'API key not found', { code: 'API_KEY_NOT_FOUND' });
    return row;
  }

  /** Strictly increasing per key, so equal updatedAt always means the same configuration. */
  function nextUpdatedAt(previous: Date): Date {
    const now = clock.now();
    return now > previous ? now : new Date(previous.getTime() + 1);
  }

  async function one(row: KeyRow) {
    return { apiKey: (await render([row]))[0] as ApiKeyView };
  }

  return {
    async createApiPolicy(caller: Caller, input: { name: string; permissions: string[] }) {
      requireSession(caller);
      await limiter.admit('security.api_policy_mutate', { caller });
      const name = input.name.trim();
      if (name.length < 1 || name.length > POLICY_NAME_MAX) {
        throw invalidArgument('name', `must be 1 to ${POLICY_NAME_MAX} characters`, 'length');
      }
      const permissions = [...new Set(input.permissions)];
      permissions.forEach((p, i) => {
        if (!(PERMISSIONS as readonly string[]).includes(p)) {
          throw invalidArgument(`permissions[${i}]`, `must be one of ${PERMISSIONS.join(', ')}`, 'enum');
        }
      });
      const now = clock.now();
      const row = await db.apiPolicy.create({
        data: {
          policyId: newPublicId(),
          ownerAccountId: caller.rootAccountId,
          name,
          permissions: permissions as Permission[],
          createdAt: now,
          updatedAt: now,
        },
      });
      return { policy: policyView(row) };
    },

    async listApiPolicies(caller: Caller, input: { limit?: number; pageToken?: string }) {
      requirePermission(caller, 'READ');
      const limit = pageLimit(input.limit, 500);
      // A subaccount-scoped key sees the policies of the keys it can see, not the root's others.
      const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
      const binding = { operation: 'listApiPolicies', caller: caller.rootPublicId, filters: { scope: String(scoped ?? '') } };
      const cursor = pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
      const rows = await db.apiPolicy.findMany({
        where: {
          ownerAccountId: caller.rootAccountId,
          ...(scoped !== undefined ? { apiKeys: { some: { subaccountId: scoped } } } : {}),
          ...afterNewestFirst(cursor),
        },
        orderBy: NEWEST_FIRST,
        take: limit + 1,
      });
      const page = toPage(rows, limit, pageTokens, binding, newestFirstCursor);
      return { policies: page.items.map(policyView), nextPageToken: page.nextPageToken };
    },

    async createApiKey(caller: Caller, input: CreateApiKeyInput) {
      requireSession(caller);
      await limiter.admit('security.api_key_create', { caller });
      await terms.requireAccepted(caller);
      const now = clock.now();
      const label = checkLabel(input.label);
      if (!isUsableEd25519PublicKey(input.publicKeyEd25519)) {
        throw invalidArgument('publicKeyEd25519', 'is not a valid Ed25519 public key', 'ed25519-point');
      }
      const ipWhitelist = checkWhitelist(input.ipWhitelist ?? []);
      const subaccount = input.subaccountId ? await resolveAccount(db, caller, input.subaccountId) : undefined;
      const policyId = input.policyId ? await policyIdOf(caller, input.policyId) : undefined;
      const expiresAt = input.expiresAt ? checkExpiry(input.expiresAt, now) : undefined;
      // Uniqueness among active keys is the database's (a partial unique index): a read
      // first would let racing requests all see the key free.
      const row = await db.apiKey
        .create({
          data: {
            keyId: newApiKeyId(),
            rootAccountId: caller.rootAccountId,
            subaccountId: subaccount?.id ?? null,
            policyId: policyId ?? null,
            label,
            icon: input.icon !== undefined ? checkToken('icon', input.icon) : null,
            color: input.color !== undefined ? checkToken('color', input.color) : null,
            ipWhitelist,
            publicKeyEd25519: new Uint8Array(input.publicKeyEd25519),
            expiresAt: expiresAt ?? null,
            createdByActor: actorLabel(caller),
            createdAt: now,
            updatedAt: now,
          },
          include: KEY_INCLUDE,
        })
        .catch((err: unknown) => {
          if (!isUniqueViolation(err)) throw err;
          // Keys are unique platform-wide; the answer is the same whoever holds the key.
          throw new ApiError('conflict', 'this public key is not accepted: generate a new key pair', { code: 'CONFLICT_DUPLICATE_PUBLIC_KEY' });
        });
      return one(row);
    },

    async listApiKeys(caller: Caller, input: { limit?: number; pageToken?: string }) {
      requirePermission(caller, 'READ');
      const limit = pageLimit(input.limit, 500);
      const where = visibleKeysWhere(caller);
      const binding = { operation: 'listApiKeys', caller: caller.rootPublicId, filters: { scope: String(where.subaccountId ?? '') } };
      const cursor = pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
      const rows = await db.apiKey.findMany({
        where: { ...where, ...afterNewestFirst(cursor) },
        orderBy: NEWEST_FIRST,
        take: limit + 1,
        include: KEY_INCLUDE,
      });
      const page = toPage(rows, limit, pageTokens, binding, newestFirstCursor);
      return { apiKeys: await render(page.items), nextPageToken: page.nextPageToken };
    },

    async getApiKey(caller: Caller, keyId: string) {
      requirePermission(caller, 'READ');
      return one(await findVisible(caller, keyId));
    },

    async updateApiKey(caller: Caller, keyId: string, input: UpdateApiKeyInput) {
      requireSession(caller);
      await limiter.admit('security.api_key_update', { caller });
      const current = await findVisible(caller, keyId);
      if (current.status !== 'ACTIVE') {
        throw new ApiError('conflict', 'a revoked key cannot be changed', { code: 'CONFLICT_API_KEY_REVOKED' });
      }
      const now = clock.now();
      const data = {
        ...(input.label !== undefined ? { label: checkLabel(input.label) } : {}),
        ...(input.icon !== undefined ? { icon: checkToken('icon', input.icon) } : {}),
        ...(input.color !== undefined ? { color: checkToken('color', input.color) } : {}),
        ...(input.ipWhitelist !== undefined ? { ipWhitelist: checkWhitelist(input.ipWhitelist) } : {}),
        ...(input.policyId !== undefined ? { policyId: input.policyId === '' ? null : await policyIdOf(caller, input.policyId) } : {}),
        ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt === null ? null : checkExpiry(input.expiresAt, now) } : {}),
      };
      // The revision check and the write are one statement: concurrent updates cannot both win.
      const updated = await db.apiKey.updateMany({
        where: { id: current.id, revision: input.expectedRevision, status: 'ACTIVE' },
        data: { ...data, revision: { increment: 1 }, updatedAt: nextUpdatedAt(current.updatedAt) },
      });
      if (updated.count !== 1) {
        throw new ApiError('conflict', `expectedRevision ${input.expectedRevision} is not the key's current revision`, {
          code: 'CONFLICT_STALE_REVISION',
          violations: [{ fieldPath: 'expectedRevision', message: 'is stale', ruleId: 'current-revision' }],
        });
      }
      authenticator.keyChanged(keyId);
      return one(await db.apiKey.findUniqueOrThrow({ where: { id: current.id }, include: KEY_INCLUDE }));
    },

    /** Idempotent: revoking a revoked key answers it unchanged. */
    async revokeApiKey(caller: Caller, keyId: string) {
      requireSession(caller);
      await limiter.admit('security.api_key_delete', { caller });
      const current = await findVisible(caller, keyId);
      if (current.status === 'REVOKED') return one(current);
      const row = await db.apiKey.update({
        where: { id: current.id },
        data: {
          status: 'REVOKED',
          revokedAt: clock.now(),
          revision: { increment: 1 },
          updatedAt: nextUpdatedAt(current.updatedAt),
        },
        include: KEY_INCLUDE,
      });
      authenticator.keyChanged(keyId);
      return one(row);
    },

    /**
     * Moves last-use times from the shared store into the database. Requests only touch
     * the store; this runs on a timer so the database sees one write per key per period.
     */
    async flushLastUsed(): Promise<number> {
      const entries = Object.entries(await store.hashTake(LAST_USED_HASH));
      for (const [keyId, ms] of entries) {
        const at = new Date(Number(ms));
        await db.apiKey.updateMany({
          where: { keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
          data: { lastUsedAt: at },
        });
      }
      return entries.length;
    },
  };
}

function policyView(row: ApiPolicy): ApiPolicyView {
  return { policyId: row.policyId, name: row.name, permissions: row.permissions, createdAt: row.createdAt };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
