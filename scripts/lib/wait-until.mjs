/** Resolves once `check` answers true, asking every `everyMs`; throws naming `what` after `timeoutMs`. */
export async function waitUntil(check, what, timeoutMs, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000} s`);
}
