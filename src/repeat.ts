/**
 * Runs `task` now and then every `everyMs` milliseconds, in the background: the timer does
 * not keep the process alive, and a run never overlaps the previous one (a slow run delays
 * the next). A failed run is handed to `onError`, and the next interval tries again.
 *
 * @param everyMs - interval between the starts of two runs, milliseconds.
 * @returns a function that stops the timer (a run in progress finishes).
 */
export function repeatInBackground(
  everyMs: number,
  task: () => Promise<void>,
  onError: (err: unknown) => void,
): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
