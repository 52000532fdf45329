import { builder } from '../../builder.ts';
import type { OrderShape } from './shapes.ts';

export const OrderOrigin = builder.objectRef<OrderShape['origin']>('OrderOrigin').implement({
  description: 'How the order came to be, as /v1’s `origin`: placed directly, or as a trigger’s child',
  fields: (t) => ({
    scope: t.exposeString('scope', { description: '`DIRECT` or `TRIGGER`' }),
    triggerId: t.exposeString('triggerId', { description: 'The trigger that placed the order; empty for a direct order' }),
    triggerType: t.exposeString('triggerType'),
    parentOrderId: t.exposeString('parentOrderId', { description: 'For an attached-risk leg’s child: the order the leg protects; empty otherwise' }),
    childSeq: t.exposeInt('childSeq', { description: 'One-based within the trigger; 0 for a direct order' }),
  }),
});
