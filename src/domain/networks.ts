import { base58 } from '@scure/base';
import { getAddress, isAddress } from 'viem';
import { invalidArgument } from './errors.ts';

/**
 * External networks a destination may name by `registryChainId` (spec 2.3), and which
 * address rule applies to each. Pure: no I/O. A network joins the table only together with
 * a validator for its addresses, so an address is never saved unchecked.
 */
export type AddressFamily = 'EVM' | 'SOLANA';

/** One asset as a network carries it: `zippedAssetId` names that representation (spec 2.12 `assetIds`). */
export interface NetworkAsset {
  symbol: string;
  zippedAssetId: number;
  /** Token contract or mint; null for the network's native coin. */
  tokenAddress: string | null;
  nativeDecimals: number;
  /** What a withdrawal to this network pays (its network fee), in the asset's unit (a decimal). */
  withdrawFee: string;
}

/**
 * The smallest deposit credited, per asset, in its unit (a decimal): below it a deposit
 * ends FAILED with AMOUNT_BELOW_MINIMUM, crediting nothing (its network fee would exceed it).
 */
export const MIN_DEPOSIT: Readonly<Record<string, string>> = { BTC: '0.0001', ETH: '0.001', SOL: '0.01', USDC: '1' };

export interface ExternalNetwork {
  registryChainId: number;
  name: string;
  family: AddressFamily;
  /** The network's own id (the EVM chain id), for display and signing; registry ids are ours. */
  nativeChainId: string;
  /** Confirmations before a deposit is credited. */
  depositConfirmations: number;
  /** Confirmations before a credited deposit may be withdrawn (exchanges publish both). */
  withdrawConfirmations: number;
  assets: readonly NetworkAsset[];
}

const USDC = (zippedAssetId: number, tokenAddress: string, withdrawFee = '0.1'): NetworkAsset => ({ symbol: 'USDC', zippedAssetId, tokenAddress, nativeDecimals: 6, withdrawFee });
const ETH = (zippedAssetId: number, withdrawFee = '0.00005'): NetworkAsset => ({ symbol: 'ETH', zippedAssetId, tokenAddress: null, nativeDecimals: 18, withdrawFee });

/**
 * Registry ids are the EVM chain ids for EVM networks; Solana, which has none, is 501 (the
 * id OKX's and Jupiter's registries use). Confirmation counts follow what large exchanges
 * publish, rounded up (docs/api-decisions.md).
 */
const NETWORKS: readonly ExternalNetwork[] = [
  { registryChainId: 1, name: 'Ethereum', family: 'EVM', nativeChainId: '1', depositConfirmations: 12, withdrawConfirmations: 64, assets: [ETH(101, '0.0008'), USDC(102, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '2')] },
  { registryChainId: 10, name: 'OP Mainnet', family: 'EVM', nativeChainId: '10', depositConfirmations: 60, withdrawConfirmations: 120, assets: [ETH(1001), USDC(1002, '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85')] },
  // USDC on BNB Smart Chain is a bridged token with 18 decimals.
  { registryChainId: 56, name: 'BNB Smart Chain', family: 'EVM', nativeChainId: '56', depositConfirmations: 15, withdrawConfirmations: 30, assets: [{ ...USDC(5602, '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', '0.3'), nativeDecimals: 18 }] },
  { registryChainId: 137, name: 'Polygon PoS', family: 'EVM', nativeChainId: '137', depositConfirmations: 256, withdrawConfirmations: 512, assets: [USDC(13702, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359')] },
  { registryChainId: 8453, name: 'Base', family: 'EVM', nativeChainId: '8453', depositConfirmations: 60, withdrawConfirmations: 120, assets: [ETH(845301), USDC(845302, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')] },
  { registryChainId: 42161, name: 'Arbitrum One', family: 'EVM', nativeChainId: '42161', depositConfirmations: 60, withdrawConfirmations: 120, assets: [ETH(4216101), USDC(4216102, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831')] },
  {
    registryChainId: 501,
    name: 'Solana',
    family: 'SOLANA',
    nativeChainId: 'mainnet-beta',
    depositConfirmations: 32,
    withdrawConfirmations: 32,
    assets: [
      { symbol: 'SOL', zippedAssetId: 50101, tokenAddress: null, nativeDecimals: 9, withdrawFee: '0.001' },
      { symbol: 'USDC', zippedAssetId: 50102, tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', nativeDecimals: 6, withdrawFee: '0.5' },
    ],
  },
];

/** The supported networks, in registry id order: what clients discover. */
export const NETWORK_LIST: readonly ExternalNetwork[] = [...NETWORKS].sort((a, b) => a.registryChainId - b.registryChainId);

export const EXTERNAL_NETWORKS: ReadonlyMap<number, ExternalNetwork> = new Map(NETWORKS.map((n) => [n.registryChainId, n]));

const INT32_MAX = 2 ** 31 - 1;
const EVM_ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

/**
 * An EVM address in its EIP-55 checksum form. Single-case hex (all lower or all upper)
 * carries no checksum and is accepted; mixed case must be a valid checksum, because a
 * mixed-case address with a wrong checksum is almost always a typo. The zero address is
 * refused: funds sent there are burnt.
 */
export function normaliseEvmAddress(address: string, fieldPath: string): string {
  if (!isAddress(address, { strict: false })) {
    throw invalidArgument(fieldPath, 'must be a 0x-prefixed 20-byte EVM address', 'evm-address');
  }
  const hex = address.slice(2);
  const singleCase = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!singleCase && !isAddress(address, { strict: true })) {
    throw invalidArgument(fieldPath, 'has an invalid EIP-55 checksum', 'evm-checksum');
  }
  if (address.toLowerCase() === EVM_ZERO_ADDRESS) {
    throw invalidArgument(fieldPath, 'is the zero address, which cannot receive funds', 'evm-zero-address');
  }
  return getAddress(address);
}

/**
 * A Solana address: the base58 text of a 32-byte public key (program-derived addresses
 * too), decoded with @scure/base. Its text is case-sensitive and has one form, so it is
 * kept as given. The system program's all-zero key is refused: funds sent there are lost.
 */
export function normaliseSolanaAddress(address: string, fieldPath: string): string {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    throw invalidArgument(fieldPath, 'must be a base58 Solana address', 'solana-address');
  }
  if (bytes.length !== 32 || base58.encode(bytes) !== address) throw invalidArgument(fieldPath, 'must be a base58 Solana address of a 32-byte key', 'solana-address');
  if (bytes.every((b) => b === 0)) throw invalidArgument(fieldPath, 'is the system program, which cannot receive funds', 'solana-system-address');
  return address;
}

/**
 * Validates an external destination and returns it normalised. Field paths are
 * `<prefix>.registryChainId` and `<prefix>.address`.
 */
export function normaliseExternalDestination(
  input: { address: string; registryChainId: number },
  prefix = 'external',
): { address: string; registryChainId: number; network: ExternalNetwork } {
  const id = input.registryChainId;
  if (!Number.isInteger(id) || id < 1 || id > INT32_MAX) {
    throw invalidArgument(`${prefix}.registryChainId`, 'must be a positive 32-bit integer', 'int32-positive');
  }
  const network = EXTERNAL_NETWORKS.get(id);
  if (!network) {
    throw invalidArgument(`${prefix}.registryChainId`, `network ${id} is not supported`, 'unknown-network');
  }
  switch (network.family) {
    case 'EVM':
      return { address: normaliseEvmAddress(input.address, `${prefix}.address`), registryChainId: id, network };
    case 'SOLANA':
      return { address: normaliseSolanaAddress(input.address, `${prefix}.address`), registryChainId: id, network };
  }
}
