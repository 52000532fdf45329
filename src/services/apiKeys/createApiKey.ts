import { isUsableEd25519PublicKey } from '../../auth/signature.ts';
import { actorLabel, type Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newApiKeyId } from '../../domain/ids.ts';
import { isUniqueViolation } from '../../infra/databaseErrors.ts';
import { requireSession, resolveAccount } from '../access.ts';
import { checkExpiry, checkLabel, checkToken, checkWhitelist, policyIdOf } from './checks.ts';
import type { ApiKeysContext } from './context.ts';
import { KEY_INCLUDE, one } from './views.ts';

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

/** An Ed25519 key (spec 4.2), sessions only, once the current terms are accepted. */
export async function createApiKey(ctx: ApiKeysContext, caller: Caller, input: CreateApiKeyInput) {
  requireSession(caller);
  await ctx.limiter.admit('security.api_key_create', { caller });
  await ctx.terms.requireAccepted(caller);
  const now = ctx.clock.now();
  const label = checkLabel(input.label);
  if (!isUsableEd25519PublicKey(input.publicKeyEd25519)) {
    throw invalidArgument('publicKeyEd25519', 'is not a valid Ed25519 public key', 'ed25519-point');
  }
  const ipWhitelist = checkWhitelist(input.ipWhitelist ?? []);
  const subaccount = input.subaccountId ? await resolveAccount(ctx.db, caller, input.subaccountId) : undefined;
  const policyId = input.policyId ? await policyIdOf(ctx, caller, input.policyId) : undefined;
  const expiresAt = input.expiresAt ? checkExpiry(input.expiresAt, now) : undefined;
  // Uniqueness among active keys is the database's (a partial unique index): a read
  // first would let racing requests all see the key free.
  const row = await ctx.db.apiKey
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
      throw errors.CONFLICT_DUPLICATE_PUBLIC_KEY('this public key is not accepted: generate a new key pair');
    });
  return one(ctx, row);
}
