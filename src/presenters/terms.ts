import { z } from 'zod';

export const termsSchema = z.strictObject({
  currentVersion: z.string(),
  acceptedVersion: z.string().describe('Empty when none was accepted'),
});

export function presentTerms(t: { currentVersion: string; acceptedVersion: string }): z.infer<typeof termsSchema> {
  return { currentVersion: t.currentVersion, acceptedVersion: t.acceptedVersion };
}
