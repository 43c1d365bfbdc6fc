import type { AutoeditRow } from "../../db/repositories/autoedits.ts";

/** An auto-edit row → the `Autoedit` resource (what it has found and made so far). */
export function presentAutoedit(a: AutoeditRow) {
  const result = a.result;
  return {
    id: a.id,
    status: a.status,
    projectId: a.projectId,
    progress: a.progress ?? (a.status === "queued" ? 0 : null),
    stage: a.status === "running" ? (a.stage ?? null) : null,
    request: a.request,
    transcriptionIds: result?.transcriptionIds ?? [],
    candidates: result?.candidates ?? [],
    compositions: a.status === "cancelled" || a.status === "failed" ? [] : (result?.compositions ?? []),
    renders: result?.renders ?? [],
    skipped: result?.skipped ?? [],
    error: a.error ?? null,
    createdAt: a.createdAt.toISOString(),
    finishedAt: a.finishedAt?.toISOString() ?? null,
  };
}
