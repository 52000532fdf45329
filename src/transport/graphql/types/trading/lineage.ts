import { builder } from '../../builder.ts';

export const Lineage = builder.objectRef<{ generation: number; id: string }>('Lineage').implement({
  fields: (t) => ({ generation: t.exposeInt('generation'), id: t.exposeString('id') }),
});
