import { and, eq } from "drizzle-orm";
import type { MediaAnalysis } from "../../media/analysis/types.ts";
import type { Db } from "../client.ts";
import { uploadAnalyses } from "../schema/upload-analyses.ts";

/** The cached analysis of an upload with these parameters, or null. */
export async function findUploadAnalysis(
  db: Db,
  uploadId: string,
  paramsKey: string,
): Promise<MediaAnalysis | null> {
  const [r] = await db
    .select({ result: uploadAnalyses.result })
    .from(uploadAnalyses)
    .where(and(eq(uploadAnalyses.uploadId, uploadId), eq(uploadAnalyses.paramsKey, paramsKey)))
    .limit(1);
  return r?.result ?? null;
}

/** Caches an analysis (a concurrent request that stored it first wins; both results are equal). */
export async function saveUploadAnalysis(
  db: Db,
  row: { uploadId: string; paramsKey: string; result: MediaAnalysis; createdAt: Date },
): Promise<void> {
  await db.insert(uploadAnalyses).values(row).onConflictDoNothing();
}
