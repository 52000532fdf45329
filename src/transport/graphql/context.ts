import type { FastifyRequest } from 'fastify';
import type { Db } from '../../infra/database.ts';
import type { Services } from '../../services/index.ts';
import type { Caller } from '../../auth/caller.ts';

export interface GraphQLContext {
  db: Db;
  services: Services;
  requestId: string;
  /** The authenticated caller (session or API key); absent for anonymous requests. */
  caller?: Caller;
  /** graphql-ws: the address of the socket's peer. */
  clientIp?: string;
  /** Present for HTTP requests; absent for operations over graphql-ws. */
  request?: FastifyRequest;
}
