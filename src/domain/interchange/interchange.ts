import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { notFound, rewriteInvalidRequest } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import {
  createComposition,
  type EditContext,
  toCompositionResource,
  type WriteContext,
} from "../composition/edit-composition.ts";
import type { Canvas } from "../composition/schema.ts";
import { type AssetLinks, resolveExportMedia, resolveImportMedia, type UnmatchedMedia } from "./media.ts";
import { compositionToMlt } from "./mlt.ts";
import { compositionToOtio } from "./otio-export.ts";
import {
  listOtioMedia,
  otioToComposition,
  parseOtio,
  withoutClips,
  withProbedDurations,
} from "./otio-import.ts";
import type { ImportWarning } from "./otio-items.ts";

/** Interchange formats of the export route. */
export type ExportFormat = "otio" | "mlt";

/** A serialised composition ready to send as a download. */
export interface ExportedFile {
  body: string;
  contentType: string;
  /** Suggested file name (`<name>.otio` / `<name>.mlt`), ASCII-safe. */
  filename: string;
}

/** A composition name as a safe ASCII file name stem. */
function fileStem(name: string): string {
  const stem = name
    .normalize("NFKD")
    .replace(/[^\w.-]+/g, "_")
    .replace(/^[_.]+|[_.]+$/g, "")
    .slice(0, 100);
  return stem || "composition";
}

/**
 * Exports one of the caller's compositions as OpenTimelineIO JSON or MLT XML.
 *
 * @param links - how media are referenced: signed URLs valid `ttlSec` seconds, or local paths.
 * @throws 404 unknown/foreign composition; 400 `paths` without local storage; 409 when an
 *   upload it uses no longer exists.
 */
export async function exportComposition(
  deps: { db: EditContext["db"]; store: BlobStore; ttlSec: number },
  input: { userId: string; id: string; format: ExportFormat; links: AssetLinks },
): Promise<ExportedFile> {
  const row = await findComposition(deps.db, input.userId, input.id);
  if (!row) throw notFound(`Composition ${input.id}`);
  const composition = toCompositionResource(row);
  const media = await resolveExportMedia(deps, input.userId, composition, input.links);
  const stem = fileStem(composition.name);
  if (input.format === "mlt") {
    return {
      body: compositionToMlt(composition, media),
      contentType: "application/xml; charset=utf-8",
      filename: `${stem}.mlt`,
    };
  }
  return {
    body: `${JSON.stringify(compositionToOtio(composition, media), null, 2)}\n`,
    contentType: "application/json; charset=utf-8",
    filename: `${stem}.otio`,
  };
}

/** Body of `POST /api/compositions/import`. */
export interface ImportRequest {
  otio: unknown;
  /** Clip item path, OTIO media name or `target_url` → one of the caller's upload ids. */
  media?: Record<string, string> | undefined;
  /** Clips whose media match no upload: refuse (`error`, default), leave out (`drop`) or leave empty time (`gap`). */
  unmatched?: UnmatchedMedia | undefined;
  projectId?: string | null | undefined;
  name?: string | undefined;
  canvas?: Partial<Canvas> | undefined;
}

/**
 * Creates a composition (version 1) from an OpenTimelineIO timeline: validates the document,
 * matches its media to the caller's uploads, converts it and stores it through the same
 * validation as `POST /api/compositions`. Nothing is stored when any step fails.
 * Nested stacks are flattened, legacy schema names upgraded; what Cutroom cannot carry
 * (effects, generators other than SolidColor, track ranges…) is left out and listed in
 * `warnings` with the JSON Pointer of its item.
 *
 * @param otioPath - where the document is in the request body, for error paths: `/otio`, or ""
 *   when the body is the bare document.
 * @throws 400 `invalid_request` for a malformed document (JSON Pointer under `otioPath`),
 *   unmatched media (listed, unless `unmatched` is `drop` or `gap`) or a timeline that is not a valid composition (details point
 *   at the OTIO item); 404 for a foreign project.
 */
export async function importComposition(
  ctx: WriteContext,
  input: ImportRequest,
  otioPath = "/otio",
): Promise<{ row: CompositionRow; warnings: ImportWarning[] }> {
  const parsed = parseOtio(input.otio, otioPath);
  const mode = input.unmatched ?? "error";
  const { resolved, unmatched } = await resolveImportMedia(
    ctx.db,
    ctx.userId,
    listOtioMedia(parsed),
    input.media ?? {},
    mode,
  );
  const probed = (path: string) => {
    const use = resolved.get(path);
    return use && "uploadId" in use ? (use.duration ?? null) : null;
  };
  const conversion = otioToComposition(
    withProbedDurations(mode === "error" ? parsed : withoutClips(parsed, unmatched, mode), probed),
    (path) => {
      const use = resolved.get(path);
      if (!use) throw new Error(`no media resolution for ${path}`);
      return use;
    },
    { name: input.name, projectId: input.projectId, canvas: input.canvas },
  );
  const row = await rewriteInvalidRequest(
    () => createComposition({ ...ctx, author: { ...ctx.author, kind: "import" } }, conversion.body),
    {
      detail: conversion.toOtioDetail,
      message: (message) => `The imported timeline is not a valid composition: ${message}`,
    },
  );
  return { row, warnings: conversion.warnings };
}
