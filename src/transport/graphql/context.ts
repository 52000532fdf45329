import type { FastifyRequest } from 'fastify';
import type { Db } from '../../infra/database.ts';
import type { Services } from '../../services/index.ts';
import type { Caller } from '../../auth/caller.ts';
import type { LiveCredential } from '../../auth/credentialWatch.ts';

export interface GraphQLContext {
  db: Db;
  services: Services;
  requestId: string;
  /** The authenticated caller (session or API key); absent for anonymous requests. */
  caller?: Caller;
  /** graphql-ws: the address of the socket's peer. */
  clientIp?: string;
  /** graphql-ws: the connection's credential, kept current by push. */
  live?: LiveCredential;
  /** Present for HTTP requests; absent for operations over graphql-ws. */
  request?: FastifyRequest;
}
