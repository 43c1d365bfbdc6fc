import type { Db } from "../../../db/client.ts";
import { hasScope } from "../../../domain/auth/scopes.ts";
import type { RenderLimits } from "../../../domain/composition/limits.ts";
import { exportComposition, importComposition, importEdl } from "../../../domain/interchange/interchange.ts";
import { parseOtioJson } from "../../../domain/interchange/otio-json.ts";
import { AppError, invalidRequest } from "../../../errors.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { contentDispositionFor } from "../../../storage/content-disposition.ts";
import { replaceJsonParser } from "../../plugins/json-body.ts";
import { presentComposition } from "../../presenters/compositions.ts";
import { AUTH_ERRORS, responses, STANDARD_HEADERS } from "../../schemas/common.ts";
import { CompositionParams } from "../../schemas/composition.ts";
import {
  ExportQuery,
  ImportQuery,
  ImportRequest,
  ImportResponse,
  isBareOtio,
  OTIO_EXAMPLE,
} from "../../schemas/interchange.ts";
import type { Auth, KeyApp } from "../../types.ts";
import { versionAuthor } from "../../version-author.ts";

const MLT_EXAMPLE = `<?xml version="1.0" encoding="utf-8"?>
<mlt LC_NUMERIC="C" version="7.0.0" title="Launch teaser" producer="main">
  <profile width="1280" height="720" progressive="1" frame_rate_num="25" frame_rate_den="1" … />
  <producer id="producer0" in="0"><property name="mlt_service">avformat</property><property name="resource">/data/uploads/upl_…/original</property></producer>
  <playlist id="playlist1"><blank length="25"/><entry producer="producer0" in="25" out="99"/></playlist>
  <tractor id="main" in="0" out="99"><multitrack>…</multitrack>…</tractor>
</mlt>`;

const EDL_EXAMPLE = `TITLE: Launch teaser
FCM: NON-DROP FRAME

001  AX       V     C            00:00:01:00 00:00:04:00 01:00:00:00 01:00:03:00
* FROM CLIP NAME: opening.mp4

002  AX       V     C            00:00:02:00 00:00:02:00 01:00:03:00 01:00:03:00
002  AX       V     D    012 00:00:01:00 00:00:05:00 01:00:03:00 01:00:07:00
* TO CLIP NAME: product.mp4
`;

/**
 * `assets=paths` exports absolute file paths on the server, which tell a caller where and how
 * the server stores data (its DATA_DIR, account-independent layout): more than the read scope,
 * which is meant for keys handed to viewers and dashboards, should learn. Allowed to keys with
 * the write scope, console sessions (the account owner) and admin accounts.
 * @throws AppError 403 `insufficient_scope` otherwise.
 */
function assertMayReadServerPaths(auth: Auth): void {
  if (auth.plan === "admin" || auth.kind !== "key" || hasScope(auth.key.scopes, "write")) return;
  throw new AppError(
    "insufficient_scope",
    'assets=paths (server file paths) needs a key with the "write" scope; use assets=urls with a read-only key',
  );
}

/**
 * The OTIO document of an options body that has no EDL.
 * @throws AppError 400 when the body has neither (or both).
 */
function requireOne(otio: unknown): unknown {
  if (otio !== undefined) return otio;
  throw invalidRequest('The body needs "otio" (an OpenTimelineIO document) or "edl" (a CMX 3600 EDL)', [
    { path: "/otio", message: "required (or edl)" },
  ]);
}

/** Largest import body, bytes: OTIO files are verbose (a few KiB per clip from editing applications). */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * NLE interchange routes (docs/interchange.md): export a composition as OpenTimelineIO JSON or
 * MLT XML, and create a composition from an OpenTimelineIO timeline.
 */
export function registerInterchangeRoutes(
  app: KeyApp,
  deps: {
    db: Db;
    store: BlobStore;
    signedUrlTtlSec: number;
    clock: { now(): Date };
    renderLimits: RenderLimits;
  },
): void {
  app.get(
    "/api/compositions/:id/export",
    {
      schema: {
        operationId: "exportComposition",
        summary: "Export a composition as OpenTimelineIO, MLT or a CMX 3600 EDL",
        description:
          "A download (`Content-Disposition: attachment`) of the composition as OpenTimelineIO JSON (`format=otio`, `.otio`) MLT XML (`format=mlt`, `.mlt`, for Kdenlive, Shotcut and `melt`) or a CMX 3600 EDL (`format=edl`, `.edl`, timecode at the canvas rate, drop-frame at 29.97 and 59.94) of one video track (`track` picks it when several have clips, else 400), the audio tracks as channels A, A2, A3, A4, fade-outs as dissolves to black and markers as `* LOC:` lines. OpenTimelineIO exports write back the metadata of other applications an import kept (`metadata.otio`). Media are referenced by signed URL (`assets=urls`, default) or by absolute path on the server (`assets=paths`, local-disk storage only; needs a key with the `write` scope, a console session or an admin account, since the paths show the server's storage layout). What each format keeps and loses is in docs/interchange.md.",
        tags: ["Compositions"],
        params: CompositionParams,
        querystring: ExportQuery,
        response: {
          ...responses({}, [...AUTH_ERRORS, 403, 404, 409], {
            400: "Invalid query, or `assets=paths` while storage is not local disk",
            403: "`assets=paths` with a read-only key of a non-admin account",
            409: "An upload the composition uses no longer exists",
          }),
          200: {
            description: "The exported file",
            headers: {
              ...STANDARD_HEADERS,
              "Content-Disposition": {
                type: "string",
                description: 'attachment; filename="<composition name>.otio" (or .mlt)',
              },
            },
            content: {
              "application/json": {
                schema: { type: "object", additionalProperties: true, examples: [OTIO_EXAMPLE] },
              },
              "application/xml": { schema: { type: "string", examples: [MLT_EXAMPLE] } },
              "text/plain": { schema: { type: "string", examples: [EDL_EXAMPLE] } },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      if (request.query.assets === "paths") assertMayReadServerPaths(auth);
      const file = await exportComposition(
        { db: deps.db, store: deps.store, ttlSec: deps.signedUrlTtlSec },
        {
          userId: auth.userId,
          id: request.params.id,
          format: request.query.format,
          links: request.query.assets ?? "urls",
          track: request.query.track,
        },
      );
      return reply
        .header("content-type", file.contentType)
        .header("content-disposition", contentDispositionFor(file.contentType, file.filename))
        .send(file.body);
    },
  );

  // OpenTimelineIO's JSON has `Inf`, `NaN` and integers beyond 2^53: this route reads it with a
  // parser of its own, in a scope of its own.
  app.register(async (child) => {
    // The same key scope, one level down: its hooks (authentication included) still run.
    const scope = child as unknown as KeyApp;
    replaceJsonParser(scope, IMPORT_BODY_LIMIT, parseOtioJson);
    // A CMX 3600 EDL sent as it is: the body becomes `{ edl }`.
    scope.addContentTypeParser(
      "text/plain",
      { parseAs: "string", bodyLimit: IMPORT_BODY_LIMIT },
      (_r, body, done) => done(null, { edl: body }),
    );
    registerImportRoute(scope, deps);
  });
}

function registerImportRoute(app: KeyApp, deps: Parameters<typeof registerInterchangeRoutes>[1]): void {
  app.post(
    "/api/compositions/import",
    {
      config: { scope: "write" },
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        operationId: "importComposition",
        summary: "Create a composition from an OpenTimelineIO timeline or a CMX 3600 EDL",
        description:
          "Converts an OpenTimelineIO `Timeline.1` (clips, trims, gaps, transitions, markers, track kinds, track source ranges, image sequences, other applications' metadata kept under `metadata.otio`) into a new composition at version 1. The body is `{ otio, … }` with options, or the bare `.otio` document; or a CMX 3600 EDL: `{ edl, fps, … }`, or the EDL itself as `text/plain` with `?fps=` (video events on one video track, audio-only events on audio tracks by channel, `* LOC:` locators as markers; events matched to uploads by clip name or reel; dissolves, wipes, fades from and to black and M2 speeds kept; errors name the event). The answer lists in `warnings` what the composition does not carry. Each external media reference is matched to one of your uploads: through `media` (clip path, reference name or target_url → upload id), through the upload id a Cutroom export recorded, or by upload file name; an unmatched `https://` reference stays a remote `src`. An image sequence matches an upload named like it (its name, file name prefix or folder, with or without a video or image extension), else its time is left empty with a warning. Other clips whose media match nothing refuse the import, unless `unmatched` is `drop` (left out, later items move up) or `gap` (their time left empty). The result is validated like `POST /api/compositions`; nothing is stored on error.",
        tags: ["Compositions"],
        body: ImportRequest,
        querystring: ImportQuery,
        response: responses({ 201: ImportResponse }, [...AUTH_ERRORS, 403, 404, 413, 415], {
          400: "Invalid OpenTimelineIO document (each `details[].path` is a JSON Pointer into the body, e.g. `/otio/tracks/children/0/children/2/source_range`), media matching none of your uploads (every one listed, with the path of its clip), or a timeline that breaks a composition rule (the detail points at the OTIO item)",
          404: "`projectId` is not one of your projects",
          413: "The body is larger than 16 MiB",
        }),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      // A bare .otio document is the timeline with every option left at its default; error
      // paths then point into the body itself.
      const body = request.body;
      const ctx = {
        db: deps.db,
        userId: auth.userId,
        now: deps.clock.now(),
        limits: deps.renderLimits,
        author: versionAuthor(auth),
      };
      const { row, warnings } = isBareOtio(body)
        ? await importComposition(ctx, { otio: body }, "")
        : body.edl !== undefined && body.otio === undefined
          ? await importEdl(ctx, { ...body, edl: body.edl, fps: body.fps ?? request.query.fps })
          : await importComposition(ctx, { ...body, otio: requireOne(body.otio) });
      return reply
        .code(201)
        .header("ETag", `"${row.version}"`)
        .send({ ...presentComposition(row), warnings });
    },
  );
}
