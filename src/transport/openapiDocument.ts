import { pino } from 'pino';
import type { Services } from '../services/index.ts';
import { Metrics } from '../infra/metrics.ts';
import { createHttpServer } from './http.ts';
import { restRoutes } from './rest/routes.ts';
import { operatorRoutes } from './rest/routes/operator.ts';

/** The document is read without a caller: nothing is ever authenticated. */
const unreachable = (): never => {
  throw new Error('the OpenAPI document is built without authenticating anyone');
};

/**
 * /v1/openapi.json as a server with the operator API answers it, built from the route table
 * alone: routes only call their services when they handle a request, so none are needed.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const services = {} as Services;
  const app = await createHttpServer({
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    idleTimeoutMs: 30_000,
    trustProxy: false,
    problemBaseUrl: 'https://errors.spot.example/problems',
    metrics: new Metrics(),
    readiness: {},
    routes: [...restRoutes(services), ...operatorRoutes(services)],
    auth: { authenticator: { authenticate: unreachable, claimSignature: unreachable } },
  });
  try {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    return res.json();
  } finally {
    await app.close();
  }
}
