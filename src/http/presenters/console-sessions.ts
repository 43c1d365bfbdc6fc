import type { ConsoleSessionRow } from "../../db/repositories/console-sessions.ts";

/** Console session row → ConsoleSession resource; `current` when it is `currentId`. */
export function presentConsoleSession(s: ConsoleSessionRow, currentId: string | null) {
  return {
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    userAgent: s.userAgent,
    ip: s.ip,
    current: s.id === currentId,
  };
}
