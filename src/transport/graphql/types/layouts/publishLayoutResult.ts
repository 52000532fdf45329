import type { LayoutTemplateView } from '../../../../services/layouts/index.ts';
import { publishLayoutBody } from '../../../../services/layouts/publishLayout.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { Template } from './layoutTemplate.ts';

const PublishResult = builder.objectRef<{ template: LayoutTemplateView; version: number }>('PublishLayoutResult').implement({
  fields: (t) => ({
    template: t.prismaField({
      type: Template,
      // Read back with the selection's relations; one deleted meanwhile is its 404.
      resolve: async (query, r, _args, ctx) => (await ctx.services.layouts.getLayoutTemplate(callerOf(ctx), r.template.template, query.include ?? {})).row,
    }),
    version: t.exposeInt('version', { description: 'The immutable version this publish created' }),
  }),
});

const PublishInput = builder.inputType('PublishLayoutInput', {
  fields: (t) => ({
    layoutId: t.field({ type: 'Int64', required: true }),
    title: t.string({ required: true }),
    description: t.string(),
    tags: t.stringList(),
    isListed: t.boolean(),
    changelog: t.string(),
  }),
});

builder.mutationField('publishLayout', (t) =>
  t.field({
    type: PublishResult,
    description: 'Publishes a saved layout as the next immutable version of its template',
    args: { input: t.arg({ type: PublishInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.layouts.publishLayout(callerOf(ctx), parseArgs(publishLayoutBody, input)),
  }),
);
