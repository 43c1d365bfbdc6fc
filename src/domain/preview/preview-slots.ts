import pLimit from "p-limit";
import { AppError } from "../../errors.ts";

/** Releases a slot taken with {@link PreviewSlots.take}; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** A bounded line of previews rendered by one API process (see {@link previewSlots}). */
export interface PreviewSlots {
  /**
   * Waits for a free slot and returns its release.
   * @throws AppError 429 `rate_limited` (with `Retry-After: 1`) when `concurrency` run and
   *   `maxWaiting` already wait.
   */
  take(): Promise<ReleaseSlot>;
}

/**
 * At most `concurrency` previews at once (frames, or streams, each held until its ffmpeg ends),
 * up to `maxWaiting` more waiting in arrival order, and beyond that a 429 naming `what`.
 */
export function previewSlots(concurrency: number, maxWaiting: number, what: string): PreviewSlots {
  const limit = pLimit(concurrency);
  return {
    take() {
      if (limit.activeCount >= concurrency && limit.pendingCount >= maxWaiting) {
        return Promise.reject(
          new AppError("rate_limited", `Too many ${what} are being rendered; retry shortly`, {
            headers: { "Retry-After": "1" },
          }),
        );
      }
      return new Promise<ReleaseSlot>((granted) => {
        void limit(
          () =>
            new Promise<void>((done) => {
              let released = false;
              granted(() => {
                if (released) return;
                released = true;
                done();
              });
            }),
        );
      });
    },
  };
}
