/**
 * Waits `ms` milliseconds with the platform's timer (no Node-only import, so it runs in
 * browsers too).
 * @throws the signal's reason (an `AbortError` DOMException by default) when `signal` aborts
 *   first or is already aborted.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
