import {
  findUpload,
  findUploadsByIds,
  listUploadsPage,
  type UploadRow,
} from "../../db/repositories/uploads.ts";
import { clipLabel } from "../composition/clip-label.ts";
import type { Clip, Composition, Track } from "../composition/schema.ts";
import { orderedClips } from "./summary.ts";
import { type ToolContext, ToolError } from "./tool-context.ts";

/** How a tool names a clip: its id (`clp_…`), its summary number (2 or "2"), or its source name. */
export type ClipRef = string | number;

const normalizeName = (s: string) =>
  s
    .toLowerCase()
    .replace(/\.[a-z0-9]{2,4}$/, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/**
 * Finds a clip by id, 1-based summary number, or (unique) source/upload name or text.
 * @throws ToolError `not_found` / `ambiguous` naming the candidates.
 */
export function resolveClip(
  c: Composition,
  ref: ClipRef,
  uploadNames: ReadonlyMap<string, string> = new Map(),
): { clip: Clip; track: Track; index: number } {
  const all = orderedClips(c);
  const raw = String(ref)
    .trim()
    .replace(/^clip\s+/i, "");
  let found = all.filter(({ clip }) => clip.id === raw);
  if (found.length === 0 && /^#?\d+$/.test(raw)) {
    const n = Number(raw.replace("#", ""));
    found = all[n - 1] ? [all[n - 1] as (typeof all)[number]] : [];
  }
  if (found.length === 0) {
    const want = normalizeName(raw);
    found = all.filter(({ clip }) => {
      const a = clip.asset as { uploadId?: string; text?: string };
      const names = [clip.name, a.text, a.uploadId ? uploadNames.get(a.uploadId) : undefined]
        .filter((x): x is string => typeof x === "string")
        .map(normalizeName);
      return names.some((n) => n === want || (want.length >= 3 && n.includes(want)));
    });
  }
  if (found.length === 0) {
    throw new ToolError(
      "not_found",
      `No clip "${ref}" in the composition (version ${c.version}); it has ${all.length} clip(s): ${all
        .map(({ clip }, i) => `${i + 1} ${clip.id}`)
        .join(", ")}`,
    );
  }
  if (found.length > 1) {
    throw new ToolError(
      "ambiguous",
      `"${ref}" matches ${found.length} clips (${found.map((f) => f.clip.id).join(", ")}); name one by id`,
    );
  }
  const hit = found[0] as (typeof all)[number];
  return { ...hit, index: hit.track.clips.findIndex((x) => x.id === hit.clip.id) };
}

/** Index of a track by id or (case-insensitive) name. */
export function findTrackIndex(c: Composition, ref: string): number {
  const r = ref.trim().toLowerCase();
  return c.tracks.findIndex((t) => t.id === ref || (t.name ?? "").toLowerCase() === r);
}

/**
 * Finds one of the caller's uploads by id or by name (case-insensitive, extension optional,
 * unique substring), in the session's project when it has one.
 * @throws ToolError `not_found` / `ambiguous`, or `wrong_type` when `types` excludes it.
 */
export async function resolveUpload(
  ctx: Pick<ToolContext, "db" | "userId" | "projectId">,
  ref: string,
  types?: UploadRow["type"][],
): Promise<UploadRow> {
  const raw = ref.trim();
  let hit: UploadRow | null = null;
  if (/^upl_/.test(raw)) {
    hit = await findUpload(ctx.db, ctx.userId, raw);
  } else {
    const { rows } = await listUploadsPage(ctx.db, {
      userId: ctx.userId,
      projectId: ctx.projectId ?? undefined,
      limit: 500,
      afterId: undefined,
    });
    const want = normalizeName(raw);
    const candidates = rows.filter((u) => !types || types.includes(u.type));
    const exact = candidates.filter((u) => normalizeName(u.name) === want);
    const partial = candidates.filter((u) => want.length >= 2 && normalizeName(u.name).includes(want));
    const list = exact.length > 0 ? exact : partial;
    if (list.length > 1) {
      throw new ToolError(
        "ambiguous",
        `"${ref}" matches ${list.length} uploads: ${list
          .slice(0, 10)
          .map((u) => `${u.name} (${u.id})`)
          .join(", ")}`,
      );
    }
    hit = list[0] ?? null;
  }
  if (!hit)
    throw new ToolError("not_found", `No upload "${ref}"${types ? ` of type ${types.join("/")}` : ""}`);
  if (types && !types.includes(hit.type)) {
    throw new ToolError(
      "wrong_type",
      `Upload ${hit.name} (${hit.id}) is a ${hit.type}, not ${types.join("/")}`,
    );
  }
  return hit;
}

/**
 * A clip as replies name it ("cockatoo.mp4 at 0:06"): see {@link clipLabel}; `names` are the
 * composition's upload names ({@link uploadNamesOf}).
 */
export function nameOfClip(clip: Clip, names: ReadonlyMap<string, string>): string {
  const uploadId = (clip.asset as { uploadId?: string }).uploadId;
  return clipLabel(clip, uploadId ? names.get(uploadId) : undefined);
}

/** Names of the uploads a composition's clips use (id → upload name), for name references. */
export async function uploadNamesOf(
  ctx: Pick<ToolContext, "db" | "userId">,
  c: Composition,
): Promise<Map<string, string>> {
  const ids = c.tracks.flatMap((t) =>
    t.clips.map((clip) => (clip.asset as { uploadId?: string }).uploadId).filter((x): x is string => !!x),
  );
  return new Map((await findUploadsByIds(ctx.db, ctx.userId, [...new Set(ids)])).map((u) => [u.id, u.name]));
}

/**
 * The clip a tool works on when the user named none: the only clip playing an uploaded video
 * (or audio too, with `audio`); with `sameUpload`, the first of several that all play the same
 * upload. `what` ends the error message (what the user should do).
 * @throws ToolError `not_found` when there is none, `ambiguous` when several could be meant (listed).
 */
export function soleUploadClip(
  c: Composition,
  what: string,
  opts: { audio?: boolean; sameUpload?: boolean } = {},
): Clip {
  const clips = orderedClips(c)
    .map((x) => x.clip)
    .filter(
      (x) => (x.asset.type === "video" || (opts.audio && x.asset.type === "audio")) && !!x.asset.uploadId,
    );
  const first = clips[0];
  if (!first)
    throw new ToolError(
      "not_found",
      `No clip plays an uploaded ${opts.audio ? "video or audio" : "video"}; ${what}`,
    );
  const distinct = opts.sameUpload
    ? new Set(clips.map((x) => (x.asset as { uploadId: string }).uploadId)).size
    : clips.length;
  if (distinct > 1) {
    throw new ToolError(
      "ambiguous",
      `Several clips could be meant (${clips
        .slice(0, 10)
        .map((x) => x.id)
        .join(", ")}); ${what}`,
    );
  }
  return first;
}
