/**
 * Polls `check` until it holds or `timeoutMs` passes, quietly: the assertions that follow
 * say what was expected, and fail with the actual state if it never came.
 */
export async function pollUntil(check: () => boolean | Promise<boolean>, timeoutMs = 1000, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, intervalMs));
}
