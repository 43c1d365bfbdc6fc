/**
 * Waits until an API process answers `GET /api/v1/health` with 2xx, polling every 100 ms.
 * @param base - e.g. `http://127.0.0.1:3000`.
 * @throws after `timeoutMs` (default 30 s) without a healthy answer.
 */
export async function waitHealthy(base: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not become healthy within ${timeoutMs} ms`);
}
