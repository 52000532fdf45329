import type { FastifyRequest } from 'fastify';
import type { AuthRequest } from '../auth/authenticate.ts';

/** An HTTP request as the authenticator reads it; REST and GraphQL over HTTP authenticate alike. */
export function authRequestOf(request: FastifyRequest): AuthRequest {
  return {
    method: request.method,
    target: request.raw.url ?? request.url,
    headers: request.headers,
    rawBody: request.rawBody ?? '',
    ip: request.ip,
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: what API-key signatures cover. */
    rawBody?: string;
  }
}
