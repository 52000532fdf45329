import { z } from 'zod';

export const templateParams = z.strictObject({ ownerId: z.string().max(64), templateId: z.string().max(64) });
export type TemplateParams = z.output<typeof templateParams>;
export { templateParams as getLayoutTemplateParams };
