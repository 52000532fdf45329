import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { EXTERNAL_NETWORKS, normaliseEvmAddress, normaliseExternalDestination, type ExternalNetwork, type NetworkAsset } from '../../domain/networks.ts';
import type { WithdrawPayload } from '../../domain/withdrawPayload.ts';
import type { AccountRef } from '../access.ts';
import type { ChainContext } from './context.ts';

/** Where a withdrawal goes, resolved and checked (docs/api-decisions.md "Withdrawals"). */
export type Destination =
  | { kind: 'external'; network: ExternalNetwork; networkAsset: NetworkAsset; address: string; label: string }
  | { kind: 'funding'; accountId: bigint; address: string | null; label: string };

/** What Validate Withdraw Destination reports of an address on a network, before any withdrawal. */
export interface DestinationCheck {
  valid: boolean;
  /** The address as it would be stored (EIP-55 checksum for EVM); empty when invalid. */
  normalizedAddress: string;
  /** Why it is not valid: the address rule's message. */
  reason: string;
  /** One of this exchange's deposit addresses: withdraw with TO_FUNDING instead. */
  isInternal: boolean;
  inAddressBook: boolean;
  addressBookEntryId: string;
  /** The root withdraws only to address-book entries. */
  allowListOnly: boolean;
  /** Whether a withdrawal there would be accepted (valid, not internal, and allowed by the allow-list). */
  allowed: boolean;
}

const notAllowListed = () =>
  errors.DESTINATION_NOT_ALLOWLISTED('the account withdraws only to its address book, and this destination is not in it');

/**
 * The payload's destination: an address on a supported network that carries the asset, and
 * not one of our own deposit addresses; or a Funding account, the caller's own or one named
 * by its public account id. With the root's allow-list on, only address-book entries (of
 * the root's book or the source subaccount's) and the account's own Funding pass.
 */
export async function resolveDestination(ctx: ChainContext, account: AccountRef, payload: WithdrawPayload, symbol: string): Promise<Destination> {
  const root = await ctx.db.account.findUniqueOrThrow({ where: { id: account.rootAccountId }, select: { withdrawAllowListOnly: true } });
  if (payload.action === 'TO_FUNDING') {
    if (payload.destinationAddress === undefined) return { kind: 'funding', accountId: account.id, address: null, label: `own Funding of ${account.publicId}` };
    // The receiving account by its smart-account address, or by its public id.
    const by = /^0x[0-9a-fA-F]{40}$/.test(payload.destinationAddress) ? { smartAccountAddress: normaliseEvmAddress(payload.destinationAddress, 'payload.destinationAddress') } : { publicId: payload.destinationAddress };
    const target = await ctx.db.account.findFirst({ where: { ...by, kind: { in: ['ROOT', 'SUBACCOUNT'] }, status: 'ACTIVE' }, select: { id: true } });
    if (!target) throw invalidArgument('payload.destinationAddress', 'names no account (TO_FUNDING takes the receiving account’s smart-account address or id)', 'exists', errors.DESTINATION_NOT_FOUND);
    if (target.id !== account.id && root.withdrawAllowListOnly) {
      const entry = await ctx.db.addressBookEntry.findFirst({ where: { scopeAccountId: { in: [account.rootAccountId, account.id] }, kind: 'INTERNAL_ACCOUNT', internalAccountId: target.id }, select: { id: true } });
      if (!entry) throw notAllowListed();
    }
    return { kind: 'funding', accountId: target.id, address: payload.destinationAddress, label: `Funding of ${payload.destinationAddress}` };
  }
  const chainId = Number(payload.destinationChainId);
  const check = await checkDestination(ctx, account, { chainId, address: payload.destinationAddress as string }, root.withdrawAllowListOnly, 'payload.destinationAddress');
  const network = EXTERNAL_NETWORKS.get(chainId) as ExternalNetwork;
  const networkAsset = network.assets.find((a) => a.symbol === symbol);
  if (!networkAsset) throw invalidArgument('payload.assetId', `${symbol} cannot be withdrawn to ${network.name}`, 'asset-network', errors.ASSET_NOT_ON_NETWORK);
  if (check.isInternal) {
    throw invalidArgument('payload.destinationAddress', 'is a deposit address of this exchange: withdraw with TO_FUNDING to the receiving account’s id instead (instant, no network fee)', 'internal', errors.DESTINATION_INTERNAL);
  }
  if (!check.allowed) throw notAllowListed();
  return { kind: 'external', network, networkAsset, address: check.normalizedAddress, label: `${check.normalizedAddress} on ${network.name} (network ${chainId})` };
}

/**
 * The address rule of the network, whether the address is one of ours, and whether the
 * address book (root's or the account's) has it. Throws only for an unknown network when
 * `fieldPath` is given (a withdrawal); otherwise reports.
 */
export async function checkDestination(ctx: ChainContext, account: AccountRef, input: { chainId: number; address: string }, allowListOnly: boolean, fieldPath?: string): Promise<DestinationCheck> {
  let normalized: string;
  try {
    normalized = normaliseExternalDestination({ address: input.address, registryChainId: input.chainId }, 'destination').address;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (fieldPath !== undefined) {
      const v = err.violations[0];
      const field = v?.fieldPath === 'destination.registryChainId' ? 'payload.destinationChainId' : fieldPath;
      throw invalidArgument(field, v?.message ?? err.message, v?.ruleId ?? 'invalid', errors.DESTINATION_INVALID);
    }
    return { valid: false, normalizedAddress: '', reason: err.violations[0]?.message ?? err.message, isInternal: false, inAddressBook: false, addressBookEntryId: '', allowListOnly, allowed: false };
  }
  const [ours, entry] = await Promise.all([
    ctx.db.depositAddress.findUnique({ where: { chainId_address: { chainId: input.chainId, address: normalized } }, select: { id: true } }),
    ctx.db.addressBookEntry.findFirst({ where: { scopeAccountId: { in: [account.rootAccountId, account.id] }, kind: 'EXTERNAL_CHAIN', externalRegistryChainId: input.chainId, externalAddress: normalized }, select: { publicId: true } }),
  ]);
  const isInternal = ours !== null;
  return { valid: true, normalizedAddress: normalized, reason: '', isInternal, inAddressBook: entry !== null, addressBookEntryId: entry?.publicId ?? '', allowListOnly, allowed: !isInternal && (!allowListOnly || entry !== null) };
}
