import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { invalidRequest, notFound, rewriteInvalidRequest } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import {
  createComposition,
  type EditContext,
  toCompositionResource,
  type WriteContext,
} from "../composition/edit-composition.ts";
import { CANVAS_FPS, type Canvas } from "../composition/schema.ts";
import { parseEdl } from "./edl.ts";
import { compositionToEdl, edlToComposition, edlTrack, listEdlMedia } from "./edl-convert.ts";
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
export type ExportFormat = "otio" | "mlt" | "edl";

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
  input: { userId: string; id: string; format: ExportFormat; links: AssetLinks; track?: number | undefined },
): Promise<ExportedFile> {
  const row = await findComposition(deps.db, input.userId, input.id);
  if (!row) throw notFound(`Composition ${input.id}`);
  const composition = toCompositionResource(row);
  const track = input.format === "edl" ? edlTrack(composition, input.track) : -1;
  const media = await resolveExportMedia(deps, input.userId, composition, input.links);
  const stem = fileStem(composition.name);
  if (input.format === "edl") {
    return {
      body: compositionToEdl(composition, media, track),
      contentType: "text/plain; charset=utf-8",
      filename: `${stem}.edl`,
    };
  }
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
  const uses = listOtioMedia(parsed);
  const { resolved, unmatched } = await resolveImportMedia(ctx.db, ctx.userId, uses, input.media ?? {}, mode);
  // Image sequences that match no upload leave their time empty, in every mode but `drop`.
  const sequenceWarnings: ImportWarning[] = uses
    .filter((u) => u.sequence && unmatched.has(u.path))
    .map((u) => ({
      path: u.path,
      message: `image sequence "${u.name}" matches none of your uploads (upload it as a video or image, or map it in "media"): its time is ${mode === "drop" ? "left out" : "left empty"}`,
    }));
  const probed = (path: string) => {
    const use = resolved.get(path);
    return use && "uploadId" in use ? (use.duration ?? null) : null;
  };
  const conversion = otioToComposition(
    withProbedDurations(withoutClips(parsed, unmatched, mode === "drop" ? "drop" : "gap"), probed),
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
  return { row, warnings: [...conversion.warnings, ...sequenceWarnings] };
}

/** Body of an EDL import: the EDL's text and the options OTIO imports take, plus the frame rate. */
export interface EdlImportRequest extends Omit<ImportRequest, "otio"> {
  edl: string;
  /** Canvas and timecode rate (drop-frame EDLs default to 29.97). */
  fps?: number | undefined;
}

/**
 * Creates a composition (version 1, one video track) from a CMX 3600 EDL: events matched to
 * the caller's uploads by clip name (`* FROM CLIP NAME`) or reel, as OTIO media are (the same
 * `media` map, keyed by name or by `event 012`), cuts, dissolves and wipes, `M2` speeds.
 * @throws 400 naming the event for a malformed EDL, unmatched media (unless `unmatched`
 *   says otherwise), or a missing `fps` for a non-drop-frame EDL.
 */
export async function importEdl(
  ctx: WriteContext,
  input: EdlImportRequest,
): Promise<{ row: CompositionRow; warnings: ImportWarning[] }> {
  const drop = /^FCM:\s*DROP FRAME/im.test(input.edl) || /\d{2}:\d{2}:\d{2};\d{2}/.test(input.edl);
  const fps = input.fps ?? input.canvas?.fps ?? (drop ? 29.97 : undefined);
  if (fps === undefined || !(CANVAS_FPS as readonly number[]).includes(fps)) {
    throw invalidRequest(
      fps === undefined
        ? "An EDL's timecode needs its frame rate: send fps (a query parameter with a text/plain body)"
        : `fps must be one of ${CANVAS_FPS.join(", ")}`,
      [{ path: "/fps", message: `one of ${CANVAS_FPS.join(", ")}` }],
    );
  }
  const edl = parseEdl(input.edl, fps);
  const mode = input.unmatched ?? "error";
  const { resolved } = await resolveImportMedia(
    ctx.db,
    ctx.userId,
    listEdlMedia(edl),
    input.media ?? {},
    mode,
  );
  const { body, warnings, clipEvents } = edlToComposition(
    edl,
    fps as Canvas["fps"],
    (path) => resolved.get(path),
    {
      name: input.name,
      projectId: input.projectId,
      canvas: input.canvas,
    },
  );
  const row = await rewriteInvalidRequest(
    () => createComposition({ ...ctx, author: { ...ctx.author, kind: "import" } }, body),
    {
      // A clip's detail names its event: "event 012: transition/duration: …".
      detail: (d) => {
        const clip = /^\/tracks\/(\d+)\/clips\/(\d+)(?:\/(.*))?$/.exec(d.path);
        const event = clip ? clipEvents[Number(clip[1])]?.[Number(clip[2])] : undefined;
        return event
          ? { path: event, message: `${event}: ${clip?.[3] ? `${clip[3]}: ` : ""}${d.message}` }
          : d;
      },
      message: (message) => `The imported EDL is not a valid composition: ${message}`,
    },
  );
  return { row, warnings };
}
