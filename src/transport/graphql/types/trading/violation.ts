import type { Violation as ViolationShape } from '../../../../domain/errorCatalogue.ts';
import { builder } from '../../builder.ts';

export const Violation = builder.objectRef<ViolationShape>('Violation').implement({
  fields: (t) => ({ fieldPath: t.exposeString('fieldPath'), message: t.exposeString('message'), ruleId: t.exposeString('ruleId') }),
});
