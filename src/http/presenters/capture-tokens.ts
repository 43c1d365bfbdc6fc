import type { CaptureTokenRow } from "../../db/repositories/capture-tokens.ts";

/** Capture token row → CaptureToken resource (never its secret). */
export function presentCaptureToken(t: CaptureTokenRow) {
  return {
    id: t.id,
    projectId: t.projectId,
    createdAt: t.createdAt.toISOString(),
    expiresAt: t.expiresAt.toISOString(),
  };
}
