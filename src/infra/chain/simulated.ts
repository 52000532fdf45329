import { createHmac } from 'node:crypto';
import { base58 } from '@scure/base';
import { getAddress } from 'viem';
import type { ExternalNetwork } from '../../domain/networks.ts';
import type { ChainAdapter } from './adapter.ts';

/**
 * The simulated chain: deterministic given its seed. A deposit address is derived from the
 * seed, the network and the account (HMAC-SHA256), in the network's own address form: the
 * last 20 bytes as a checksummed EVM address, or 32 bytes as a base58 Solana key. No key
 * behind it exists: the simulator, not a wallet, reports what is sent there.
 */
export function simulatedChain(seed: string): ChainAdapter {
  return {
    depositAddress(accountId, network: ExternalNetwork) {
      const derivationPath = `sim/${network.registryChainId}/${accountId}`;
      const digest = createHmac('sha256', seed).update(derivationPath).digest();
      const address = network.family === 'SOLANA' ? base58.encode(digest) : getAddress(`0x${digest.subarray(12).toString('hex')}`);
      return { address, derivationPath };
    },
    submitWithdrawal(network: ExternalNetwork, withdrawal) {
      const digest = (part: string) => createHmac('sha256', seed).update(`withdraw/${network.registryChainId}/${withdrawal.reference}/${part}`).digest();
      // A Solana transaction is named by its 64-byte signature in base58, an EVM one by its 32-byte hash.
      const txHash = network.family === 'SOLANA' ? base58.encode(Buffer.concat([digest('0'), digest('1')])) : `0x${digest('0').toString('hex')}`;
      return { txHash };
    },
  };
}
