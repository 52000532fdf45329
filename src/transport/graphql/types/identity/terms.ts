import { acceptTermsBody } from '../../../../services/acceptTerms.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

const Terms = builder.objectRef<{ currentVersion: string; acceptedVersion: string }>('Terms').implement({
  fields: (t) => ({
    currentVersion: t.exposeString('currentVersion'),
    acceptedVersion: t.exposeString('acceptedVersion', { description: 'Empty when none was accepted' }),
  }),
});

builder.objectField(ViewerRef, 'terms', (t) => t.field({ type: Terms, resolve: (caller, _args, ctx) => ctx.services.terms.getTerms(caller) }));

builder.mutationField('acceptTerms', (t) =>
  t.field({
    type: Terms,
    args: { version: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.terms.acceptTerms(callerOf(ctx), parseArgs(acceptTermsBody, args)),
  }),
);
