import type { Caller } from '../../../auth/caller.ts';
import { builder } from '../builder.ts';
import { callerOf } from '../connections.ts';

/** The signed-in caller's view of the platform: everything under it is theirs. */
export const ViewerRef = builder.objectRef<Caller>('Viewer').implement({
  description: 'The authenticated caller: its root account and what it owns',
  fields: (t) => ({
    rootAccountId: t.string({ resolve: (c) => c.rootPublicId }),
    credential: t.string({
      description: '`session` or `apiKey`',
      resolve: (c) => c.kind,
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    description: 'The authenticated caller; an error without credentials',
    resolve: (_root, _args, ctx) => callerOf(ctx),
  }),
);
