import type { FastifyRequest } from 'fastify';
import type { Db } from '../../infra/database.ts';
import type { Services } from '../../services/index.ts';
import type { Viewer } from '../../services/accounts.ts';

export interface GraphQLContext {
  db: Db;
  services: Services;
  requestId: string;
  /** The authenticated caller; absent for anonymous requests. */
  viewer?: Viewer;
  /** Present for HTTP requests; absent for operations over graphql-ws. */
  request?: FastifyRequest;
}
