import type { ServerInfo as ServerInfoShape } from '../../../services/system.ts';
import { builder } from '../builder.ts';

const ServerInfo = builder.objectRef<ServerInfoShape>('ServerInfo').implement({
  description: 'What a client checks first: which API it reached and the server clock',
  fields: (t) => ({
    apiVersion: t.exposeString('apiVersion'),
    serverTime: t.expose('serverTime', { type: 'DateTime' }),
  }),
});

builder.queryField('serverInfo', (t) =>
  t.field({
    type: ServerInfo,
    resolve: (_root, _args, ctx) => ctx.services.system.serverInfo(),
  }),
);

builder.subscriptionField('serverTime', (t) =>
  t.field({
    type: 'DateTime',
    description: 'The server clock once a second; a liveness probe for subscription clients',
    args: { count: t.arg.int({ required: false, description: 'Stop after this many ticks' }) },
    subscribe: (_root, args, ctx) => ctx.services.system.ticks(args.count ?? undefined),
    resolve: (time) => time,
  }),
);
