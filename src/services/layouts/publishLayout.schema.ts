import { z } from 'zod';
import { nonNegativeInt64 } from '../inputCodec.ts';

export const TEMPLATE_TITLE_MAX = 100;
export const TEMPLATE_DESCRIPTION_MAX = 2000;
export const TEMPLATE_CHANGELOG_MAX = 2000;
export const MAX_TEMPLATE_TAGS = 10;
export const TEMPLATE_TAG_MAX = 32;
/** Growth caps (docs/scaling.md): a version holds up to about 0.9 MB of layout, and is never deleted. */
export const MAX_VERSIONS_PER_TEMPLATE = 50;
export const MAX_TEMPLATES_PER_ACCOUNT = 20;
/** What the transports let through: past the rules above, so the service names the rule that failed. */
const TITLE_INPUT_MAX = 1024;
const TEXT_INPUT_MAX = 16_384;
const TAG_INPUT_MAX = 256;
const TAGS_INPUT_MAX = 100;

export const publishLayoutBody = z.strictObject({
  layoutId: nonNegativeInt64(),
  title: z.string().max(TITLE_INPUT_MAX),
  description: z.string().max(TEXT_INPUT_MAX).optional(),
  tags: z.array(z.string().max(TAG_INPUT_MAX)).max(TAGS_INPUT_MAX).optional(),
  isListed: z.boolean().optional(),
  changelog: z.string().max(TEXT_INPUT_MAX).optional(),
});
export type PublishLayoutBody = z.output<typeof publishLayoutBody>;
