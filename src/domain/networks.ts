import { getAddress, isAddress } from 'viem';
import { invalidArgument } from './errors.ts';

/**
 * External networks a destination may name by `registryChainId` (spec 2.3), and which
 * address rule applies to each. Pure: no I/O. A network joins the table only together with
 * a validator for its addresses, so an address is never saved unchecked.
 */
export type AddressFamily = 'EVM';

export interface ExternalNetwork {
  registryChainId: number;
  name: string;
  family: AddressFamily;
}

const NETWORKS: readonly ExternalNetwork[] = [
  { registryChainId: 1, name: 'Ethereum', family: 'EVM' },
  { registryChainId: 10, name: 'OP Mainnet', family: 'EVM' },
  { registryChainId: 56, name: 'BNB Smart Chain', family: 'EVM' },
  { registryChainId: 137, name: 'Polygon PoS', family: 'EVM' },
  { registryChainId: 8453, name: 'Base', family: 'EVM' },
  { registryChainId: 42161, name: 'Arbitrum One', family: 'EVM' },
];

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
  }
}
