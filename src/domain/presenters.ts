import type { Db } from "../db/client.ts";
import { type GenerationRow, outputsOf } from "../db/repositories/generations.ts";
import type { ProjectRow } from "../db/repositories/projects.ts";
import type { RenderRow } from "../db/repositories/renders.ts";
import type { TranscriptionRow } from "../db/repositories/transcriptions.ts";
import type { UploadRow } from "../db/repositories/uploads.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { effectiveImageModelId } from "./generation/models.ts";
import { FORMAT_MIME } from "./render/outputs.ts";
import { analysisTranscript } from "./transcription/exports.ts";
import { previewProxyState } from "./uploads/preview-proxy.ts";

/** Project row → wire shape (docs/conventions.md, Resources). */
export function presentProject(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** API key details → wire shape; never the secret. */
export function presentApiKey(k: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt?: Date | null;
}) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

/** A user → the `User` wire shape. */
export function presentUser(u: {
  id: string;
  email: string;
  name: string;
  plan: string;
  createdAt: Date;
  imageModel: string | null;
}) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    plan: u.plan,
    createdAt: u.createdAt.toISOString(),
    settings: { imageModel: effectiveImageModelId(u.imageModel) },
  };
}

/** What presenting a resource with file URLs needs: the store that signs them and their lifetime (seconds). */
export interface SigningDeps {
  store: BlobStore;
  signedUrlTtlSec: number;
}

/** A freshly signed URL of a JPEG poster at `key`, or null when there is none. */
async function signPoster(deps: SigningDeps, key: string | null | undefined) {
  return key
    ? deps.store.signedUrl(key, { expiresInSec: deps.signedUrlTtlSec, contentType: "image/jpeg" })
    : null;
}

/** Upload row → Upload resource with freshly signed `url` and `posterUrl`. */
export async function presentUpload(deps: SigningDeps, u: UploadRow) {
  const signed = await deps.store.signedUrl(u.storageKey, {
    expiresInSec: deps.signedUrlTtlSec,
    filename: u.name,
    contentType: u.mimeType,
  });
  const poster = await signPoster(deps, u.posterKey);
  return {
    id: u.id,
    projectId: u.projectId,
    url: signed.url,
    urlExpiresAt: signed.expiresAt.toISOString(),
    type: u.type,
    mimeType: u.mimeType,
    name: u.name,
    size: u.size,
    sha256: u.sha256,
    createdAt: u.createdAt.toISOString(),
    media: u.media ?? null,
    fontFamilies: u.fontFamilies ?? null,
    origin: u.origin,
    generationId: u.generationId,
    posterUrl: poster?.url ?? null,
    previewProxy: previewProxyState(u.previewProxy),
  };
}

/** Render row → Render resource, with freshly signed output/poster URLs. */
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
    status: r.status,
    progress: r.progress,
    attempt: r.attempt,
    output,
    error: r.error ?? null,
    warnings: r.warnings ?? [],
    segments: r.segmentCount != null ? { total: r.segmentCount, done: r.segmentsDone } : null,
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}

/** Generation row + its output uploads → the Generation resource (outputs with fresh signed URLs). */
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

/** A generation row → the Generation resource, reading its outputs (`db` may be a transaction). */
export async function presentGenerationRow(db: Db, deps: SigningDeps, g: GenerationRow) {
  const outputs = (await outputsOf(db, [g.id])).get(g.id) ?? [];
  return presentGeneration(deps, g, outputs);
}

/** A transcription row → the Transcription resource (its transcript once succeeded). */
export function presentTranscription(t: TranscriptionRow) {
  const result = t.status === "succeeded" ? t.result : null;
  return {
    id: t.id,
    status: t.status,
    uploadId: t.uploadId,
    projectId: t.projectId,
    engine: t.engine,
    quality: t.quality,
    progress: t.progress ?? (t.status === "queued" ? 0 : null),
    language: result?.language ?? t.language,
    duration: result?.duration ?? null,
    segments: result?.segments ?? [],
    transcript: analysisTranscript(result?.segments ?? []),
    error: t.error ?? null,
    createdAt: t.createdAt.toISOString(),
    finishedAt: t.finishedAt?.toISOString() ?? null,
  };
}
