import type { GenerationRow } from "../../db/repositories/generations.ts";
import type { UploadRow } from "../../db/repositories/uploads.ts";
import type { SigningDeps } from "./signing.ts";
import { presentUpload } from "./uploads.ts";

/** Generation row + its output uploads → the `Generation` resource (outputs with fresh signed URLs). */
export async function presentGeneration(deps: SigningDeps, g: GenerationRow, outputs: UploadRow[]) {
  return {
    id: g.id,
    kind: g.kind,
    status: g.status,
    projectId: g.projectId,
    prompt: g.prompt,
    params: g.params,
    model: g.model,
    outputs: g.status === "succeeded" ? await Promise.all(outputs.map((u) => presentUpload(deps, u))) : [],
    error: g.error ?? null,
    warnings: g.warnings ?? [],
    progress: g.progress ?? (g.status === "queued" ? 0 : null),
    createdAt: g.createdAt.toISOString(),
    finishedAt: g.finishedAt?.toISOString() ?? null,
  };
}
