import type { Db } from "../../db/client.ts";
import { CHANNELS, type Notifications, notify } from "../../db/notifications.ts";
import {
  findGenerationById,
  GENERATION_TERMINAL,
  type GenerationRow,
} from "../../db/repositories/generations.ts";

/**
 * Tells waiters in every process that generation `id` reached a terminal status (a database
 * notification on {@link CHANNELS.generationSettled}). Call after the terminal write.
 */
export async function announceSettled(db: Db, id: string): Promise<void> {
  await notify(db, CHANNELS.generationSettled, id);
}

/**
 * Waits until generation `id` is terminal or `timeoutMs` passed; returns the row as last read.
 * Wakes at once when any process settles it ({@link announceSettled}), and otherwise re-reads
 * the row every `pollMs` (a lost notification).
 */
export async function waitForSettled(
  deps: { db: Db; notifications: Notifications },
  id: string,
  opts: { timeoutMs: number; pollMs?: number },
): Promise<GenerationRow | null> {
  const deadline = Date.now() + opts.timeoutMs;
  const pollMs = opts.pollMs ?? 1000;
  let settled = false;
  let wake: (() => void) | null = null;
  const unsubscribe = deps.notifications.subscribe(CHANNELS.generationSettled, id, () => {
    settled = true;
    wake?.();
  });
  try {
    for (;;) {
      settled = false;
      const row = await findGenerationById(deps.db, id);
      const left = deadline - Date.now();
      if (!row || GENERATION_TERMINAL.includes(row.status) || left <= 0) return row;
      if (settled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pollMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    unsubscribe();
  }
}
