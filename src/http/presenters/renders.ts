import type { RenderRow } from "../../db/repositories/renders.ts";
import { FORMAT_MIME } from "../../domain/render/outputs.ts";
import { type SigningDeps, signPoster } from "./signing.ts";

/** Render row → the `Render` resource, with freshly signed output/poster URLs. */
export async function presentRender(deps: SigningDeps, r: RenderRow) {
  let output = null;
  if (r.output) {
    const { key, posterKey, url: _u, expiresAt: _e, ...facts } = r.output;
    const filename = `${r.id}.${facts.format}`;
    // Signed with the content type: local storage serves what the URL says (else octet-stream).
    const contentType = FORMAT_MIME[facts.format];
    const signed = await deps.store.signedUrl(key, {
      expiresInSec: deps.signedUrlTtlSec,
      filename,
      contentType,
    });
    const poster = await signPoster(deps, posterKey);
    output = {
      ...facts,
      url: signed.url,
      expiresAt: signed.expiresAt.toISOString(),
      ...(poster ? { posterUrl: poster.url } : {}),
    };
  }
  return {
    id: r.id,
    compositionId: r.compositionId,
    compositionVersion: r.compositionVersion,
    compositionName: r.composition.name ?? null,
    projectId: r.composition.projectId ?? null,
    status: r.status,
    progress: r.progress,
    attempt: r.attempt,
    output,
    error: r.error ?? null,
    warnings: r.warnings ?? [],
    segments: r.segmentCount != null ? { total: r.segmentCount, done: r.segmentsDone } : null,
    reuse: r.reuse ?? null,
    smartRender: r.smartRender
      ? {
          copiedFrames: r.smartRender.copiedFrames,
          encodedFrames: r.smartRender.encodedFrames,
          reasons: r.smartRender.reasons,
        }
      : null,
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}
