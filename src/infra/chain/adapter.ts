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

  /**
   * Sends a withdrawal once its validators approved it, and names its transaction. Sending
   * the same `reference` again (after a crash) is the same transaction, never a second one.
   * Its confirmations, or its dropping, are then reported like a deposit's.
   */
  submitWithdrawal(network: ExternalNetwork, withdrawal: { reference: string; to: string; asset: string; amountE18: bigint }): { txHash: string };
}
