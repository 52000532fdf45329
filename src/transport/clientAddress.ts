import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../config.ts';

export type TrustFunction = (address: string, hop: number) => boolean;

export function trustFunction(trust: TrustProxy): TrustFunction | false {
  if (trust === false) return false;
  if ('hops' in trust) return (_address, hop) => hop < trust.hops;
  return proxyAddr.compile(trust.addresses);
}

/** The client's address as HTTP requests see it, for requests Fastify does not route (WebSocket upgrades). */
export function clientAddress(req: IncomingMessage, trust: TrustFunction | false): string {
  return trust ? proxyAddr(req, trust) : (req.socket.remoteAddress ?? '');
}
