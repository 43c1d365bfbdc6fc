import { EventEmitter } from "node:events";
import type { Db } from "../../db/client.ts";
import {
  findGenerationById,
  GENERATION_TERMINAL,
  type GenerationRow,
} from "../../db/repositories/generations.ts";

const events = new EventEmitter();
events.setMaxListeners(0);

/** Tells waiters in this process that generation `id` reached a terminal status. */
export function announceSettled(id: string): void {
  events.emit(id);
}

/**
 * Waits until generation `id` is terminal or `timeoutMs` passed; returns the row as last read.
 * Wakes at once when this process settles it ({@link announceSettled}), and otherwise re-reads
 * the row every `pollMs` (a worker in another process).
 */
export async function waitForSettled(
  db: Db,
  id: string,
  opts: { timeoutMs: number; pollMs?: number },
): Promise<GenerationRow | null> {
  const deadline = Date.now() + opts.timeoutMs;
  const pollMs = opts.pollMs ?? 250;
  for (;;) {
    const row = await findGenerationById(db, id);
    const left = deadline - Date.now();
    if (!row || GENERATION_TERMINAL.includes(row.status) || left <= 0) return row;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        events.off(id, done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(pollMs, left));
      events.on(id, done);
    });
  }
}
