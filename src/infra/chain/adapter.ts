import type { ExternalNetwork } from '../../domain/networks.ts';

/**
 * What the service needs of the chains it takes deposits from and sends withdrawals to
 * (docs/api-decisions.md, "Chains"). One implementation runs here, the simulated chain;
 * a real one (an EVM JSON-RPC watcher, a Solana RPC watcher) provides the same, and nothing
 * in services depends on which.
 */
export interface ChainAdapter {
  /**
   * The deposit address of one account on one network: the same every time it is asked
   * (also by another process), so assigning one twice can only ever store one address.
   */
  depositAddress(accountId: bigint, network: ExternalNetwork): { address: string; derivationPath: string };
}
