/**
 * The reframe step: a composition made for another aspect ratio, each video clip's picture
 * cropped by a window that follows the faces in it (see shot-framing.ts and track.ts). Reads the
 * clips' uploads and their scene cuts, never writes: the caller stores the result (as one
 * composition version).
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { findUploadsByIds, type UploadRow } from "../../db/repositories/uploads.ts";
import { invalidRequest } from "../../errors.ts";
import { containerSeekOf } from "../../media/container-seek.ts";
import type { FaceBox, FaceDetector } from "../../media/faces/detector.ts";
import { sampleFrames } from "../../media/faces/frames.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { localCopy } from "../../storage/local-copy.ts";
import { clipLabel } from "../composition/clip-label.ts";
import { sourceSpan, splitAtSourceTimes } from "../composition/recut.ts";
import type { Canvas, Clip, Composition, ReframeKeyframe, Track } from "../composition/schema.ts";
import { ANALYSIS_DEFAULTS, uploadAnalysis } from "../uploads/analysis.ts";
import { frameShot, type ShotFraming } from "./shot-framing.ts";
import { type LumaFrames, lumaThumbnail } from "./track.ts";

/** The aspect ratios a composition can be reframed to. */
export const REFRAME_ASPECTS = ["9:16", "1:1", "16:9"] as const;
/** An aspect ratio of {@link REFRAME_ASPECTS}. */
export type ReframeAspect = (typeof REFRAME_ASPECTS)[number];

/**
 * What the reframe step reads, and nothing more: the caller's uploads (rows, bytes) and their
 * cached scene analysis, scratch space, and the face detector.
 */
export interface ReframeDeps {
  db: Db;
  store: BlobStore;
  clock: Clock;
  /** Scratch space (WORK_DIR) for remote copies and the scene analysis. */
  workRoot: string;
  /** The owner of the composition: its clips' uploads are looked up as theirs. */
  userId: string;
  /** The process's face detector (`createFaceDetector`). */
  faces: FaceDetector;
}

/** One shot of a reframed clip and how it was framed. */
export interface ReframeShot {
  /** The clip (after the step: the piece of it that plays the shot). */
  clipId: string;
  /** Source seconds of the shot inside the clip. */
  start: number;
  end: number;
  /** Timeline seconds of the shot. */
  timelineStart: number;
  timelineEnd: number;
  layout: "single" | "split";
  subject: ShotFraming["subject"];
  faces: number;
  /** Samples the detector looked at. */
  samples: number;
}

/** The result of {@link reframeComposition}. */
export interface ReframeResult<C> {
  /** The composition at the new aspect ratio (canvas and reframed clips changed; not stored). */
  composition: C;
  /** A version summary, e.g. "reframed 9:16, 6 shots". */
  summary: string;
  shots: ReframeShot[];
  /** Why each clip and shot was framed as it was, one sentence each. */
  reasons: string[];
}

/** The canvas size for `aspect`: the current canvas's shorter side kept, the other from the aspect (even pixels, at most 4096). */
export function canvasFor(
  canvas: Pick<Canvas, "width" | "height">,
  aspect: ReframeAspect,
): { width: number; height: number } {
  const short = Math.min(canvas.width, canvas.height);
  const even = (v: number) => Math.max(16, Math.min(4096, Math.round(v / 2) * 2));
  if (aspect === "1:1") return { width: short, height: short };
  const long = even((short * 16) / 9);
  return aspect === "9:16" ? { width: short, height: long } : { width: long, height: short };
}

/** Samples per second of source the detector looks at: fewer on long clips. */
function sampleRate(seconds: number): number {
  return seconds <= 120 ? 4 : seconds <= 600 ? 2 : 1;
}

/** Seconds of source decoded at once (bounds the memory of one batch). */
const CHUNK_SEC = 15;
/** Frames per detector task. */
const BATCH = 20;
/** The larger side of the frames the detector sees, pixels. */
const DETECT_SIZE = 416;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

interface Sampled {
  times: number[];
  faces: FaceBox[][];
  luma: Uint8Array[];
  lumaSize: { width: number; height: number };
}

/** Samples `span` of `input` (its file and how to seek it) and detects the faces of every sample. */
async function detectSpan(
  deps: ReframeDeps,
  input: { path: string; seek: NonNullable<Parameters<typeof sampleFrames>[1]["seek"]> },
  source: { width: number; height: number },
  span: { start: number; end: number },
  rate: number,
  signal: AbortSignal | undefined,
): Promise<Sampled> {
  const scale = DETECT_SIZE / Math.max(source.width, source.height);
  const width = Math.max(32, Math.round((source.width * scale) / 2) * 2);
  const height = Math.max(32, Math.round((source.height * scale) / 2) * 2);
  const out: Sampled = {
    times: [],
    faces: [],
    luma: [],
    lumaSize: { width: Math.floor(width / 4), height: Math.floor(height / 4) },
  };
  for (let from = span.start; from < span.end - 1e-6; from += CHUNK_SEC) {
    signal?.throwIfAborted();
    const duration = Math.min(CHUNK_SEC, span.end - from);
    const frames = await sampleFrames(input.path, {
      seek: input.seek,
      start: from,
      duration,
      fps: rate,
      width,
      height,
      timeoutMs: 30_000 + duration * 2_000,
      signal,
    });
    const frameBytes = width * height * 3;
    for (let i = 0; i < frames.count; i += BATCH) {
      const count = Math.min(BATCH, frames.count - i);
      const found = await deps.faces.detect(
        { rgb: frames.rgb.subarray(i * frameBytes, (i + count) * frameBytes), width, height, count },
        signal,
      );
      out.faces.push(...found);
    }
    for (let i = 0; i < frames.count; i += 1) out.luma.push(lumaThumbnail(frames.rgb, i, width, height, 4));
    out.times.push(...frames.times);
  }
  return out;
}

/** Whether a clip fills its whole box with the canvas (no size transform): the clips reframed by default. */
function fillsCanvas(clip: Clip): boolean {
  const t = clip.transform ?? {};
  return (t.width ?? 1) === 1 && (t.height ?? 1) === 1;
}

/** Merges keyframe lists of consecutive shots (times strictly increasing). */
function joinKeyframes(lists: readonly ReframeKeyframe[][]): ReframeKeyframe[] {
  const out: ReframeKeyframe[] = [];
  for (const k of lists.flat()) {
    const last = out.at(-1);
    if (!last || k.time > last.time + 1e-4) out.push(k);
  }
  return out;
}

/** Most keyframes of one list (the schema's bound; the render's crop expression grows with them). */
const MAX_KEYFRAMES = 1000;

/**
 * A keyframe list thinned to {@link MAX_KEYFRAMES} (every n-th kept, the last too) when longer,
 * said in `reasons`: the window then follows the face more loosely.
 */
function atMost(keyframes: ReframeKeyframe[], clip: string, reasons: string[]): ReframeKeyframe[] {
  if (keyframes.length <= MAX_KEYFRAMES) return keyframes;
  const step = Math.ceil(keyframes.length / (MAX_KEYFRAMES - 1));
  const kept = keyframes.filter((_, i) => i % step === 0);
  const last = keyframes.at(-1) as ReframeKeyframe;
  if (kept.at(-1) !== last) kept.push(last);
  reasons.push(
    `${clip}: ${keyframes.length} keyframes thinned to ${kept.length}; split the clip for a closer follow`,
  );
  return kept;
}

/**
 * Reframes a composition for `aspectRatio`: the canvas gets that aspect (its shorter side kept),
 * and each chosen video clip gets a `reframe` window of its box's aspect that follows the faces
 * in its picture, shot by shot (the upload's scene cuts, `ANALYSIS_DEFAULTS` thresholds; sampled
 * 4 times a second, fewer on clips longer than 2 minutes). A clip whose shots need different
 * layouts (two people side by side → two stacked halves; otherwise one window) is split at those
 * shots' cuts. A clip's static `crop` is replaced by the window. Nothing is stored.
 *
 * Chosen clips: `clipIds`, or else every video clip from an upload that fills the canvas (no
 * size transform). Clips left as they are (a picture-in-picture, a deleted upload, an https
 * source) are named in `reasons`.
 *
 * @param deps - see {@link ReframeDeps}.
 * @param composition - a composition with ids (as stored or as GET returns it); not mutated.
 * @param opts.signal - aborts decoding and detection (rejects with the signal's reason or a MediaProbeError).
 * @throws AppError 400 naming `/clipIds/<i>` for an id that is not a video clip from an upload of
 *   this composition; MediaProbeError when ffmpeg cannot decode an upload.
 */
export async function reframeComposition<C extends Pick<Composition, "canvas" | "tracks">>(
  deps: ReframeDeps,
  composition: C,
  opts: {
    aspectRatio: ReframeAspect;
    clipIds?: readonly string[] | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<ReframeResult<C>> {
  const doc = structuredClone(composition) as C;
  const size = canvasFor(doc.canvas, opts.aspectRatio);
  doc.canvas = { ...doc.canvas, ...size };
  const reasons: string[] = [];
  const shots: ReframeShot[] = [];

  const all = doc.tracks.flatMap((track) => track.clips.map((clip) => ({ track, clip })));
  let chosen: { track: Track; clip: Clip }[];
  if (opts.clipIds) {
    const problems: { path: string; message: string }[] = [];
    chosen = [];
    opts.clipIds.forEach((id, i) => {
      const found = all.find((c) => c.clip.id === id);
      if (!found) problems.push({ path: `/clipIds/${i}`, message: `no clip ${id} in this composition` });
      else if (found.clip.asset.type !== "video" || !found.clip.asset.uploadId) {
        problems.push({ path: `/clipIds/${i}`, message: `clip ${id} is not a video clip from an upload` });
      } else if (!chosen.includes(found)) chosen.push(found);
    });
    if (problems.length > 0) throw invalidRequest("Some clips cannot be reframed", problems);
  } else {
    chosen = [];
    for (const c of all) {
      if (c.track.kind !== "video" || c.clip.asset.type !== "video") continue;
      if (!c.clip.asset.uploadId)
        reasons.push(`${clipLabel(c.clip)}: an https source is not analysed; left as it is`);
      else if (!fillsCanvas(c.clip))
        reasons.push(`${clipLabel(c.clip)}: picture-in-picture (sized by its transform); left as it is`);
      else chosen.push(c);
    }
  }
  const uploadIds = [...new Set(chosen.map((c) => (c.clip.asset as { uploadId: string }).uploadId))];
  const uploads = new Map<string, UploadRow>(
    (await findUploadsByIds(deps.db, deps.userId, uploadIds)).map((u) => [u.id, u]),
  );
  /** A clip as reasons name it: its name or file name and where it starts ("talk.mp4 at 0:06"). */
  const label = (clip: Clip) =>
    clipLabel(clip, uploads.get((clip.asset as { uploadId?: string }).uploadId ?? "")?.name);

  await mkdir(deps.workRoot, { recursive: true });
  const workDir = await mkdtemp(path.join(deps.workRoot, "reframe-"));
  try {
    const inputs = new Map<string, { path: string; cuts: number[] }>();
    for (const { track, clip } of chosen) {
      const uploadId = (clip.asset as { uploadId: string }).uploadId;
      const upload = uploads.get(uploadId);
      const media = upload?.media;
      if (!upload || !media?.width || !media.height || upload.type !== "video") {
        reasons.push(`${label(clip)}: its upload is missing or has no picture; left as it is`);
        continue;
      }
      let input = inputs.get(uploadId);
      if (!input) {
        const analysis = await uploadAnalysis(deps, deps.userId, uploadId, ANALYSIS_DEFAULTS);
        input = {
          path: await localCopy(deps.store, upload.storageKey, workDir, uploadId),
          cuts: analysis.scenes?.cuts.map((c) => c.time) ?? [],
        };
        inputs.set(uploadId, input);
      }
      const source = { width: media.width, height: media.height };
      const t = clip.transform ?? {};
      const aspect = ((t.width ?? 1) * size.width) / ((t.height ?? 1) * size.height);
      const span = sourceSpan(clip);
      const end = media.duration ? Math.min(span.end, media.duration) : span.end;
      const rate = sampleRate(end - span.start);
      const sampled = await detectSpan(
        deps,
        {
          path: input.path,
          seek: { container: containerSeekOf(media.formatName), keyframeTimes: upload.keyframes?.times },
        },
        source,
        { start: span.start, end },
        rate,
        opts.signal,
      );
      const bounds = [span.start, ...input.cuts.filter((c) => c > span.start + 1e-3 && c < end - 1e-3), end];
      const framed: { start: number; end: number; framing: ShotFraming; samples: number }[] = [];
      for (let i = 0; i + 1 < bounds.length; i += 1) {
        const shot = { start: bounds[i] as number, end: bounds[i + 1] as number };
        const idx = sampled.times.flatMap((time, k) =>
          time >= shot.start - 1e-6 && time < shot.end ? [k] : [],
        );
        const framing = frameShot({
          samples: idx.map((k) => sampled.faces[k] as FaceBox[]),
          times: idx.map((k) => sampled.times[k] as number),
          rate,
          shot,
          source,
          aspect,
          luma: {
            ...sampled.lumaSize,
            frames: idx.map((k) => sampled.luma[k] as Uint8Array),
          } satisfies LumaFrames,
        });
        framed.push({ ...shot, framing, samples: idx.length });
      }
      // One piece per run of shots with the same layout.
      const runs: (typeof framed)[] = [];
      for (const f of framed) {
        const run = runs.at(-1);
        if (run && (run[0] as (typeof framed)[number]).framing.layout === f.framing.layout) run.push(f);
        else runs.push([f]);
      }
      const pieces =
        runs.length > 1
          ? splitAtSourceTimes(
              track,
              clip.id,
              runs.slice(1).map((run) => (run[0] as (typeof framed)[number]).start),
              0,
            )
          : [clip];
      if (pieces.length !== runs.length)
        throw new Error("reframe: a clip split into an unexpected number of pieces");
      pieces.forEach((piece, p) => {
        const run = runs[p] as typeof framed;
        if (piece.crop) {
          reasons.push(`${label(piece)}: its crop is replaced by the reframe window`);
          delete piece.crop;
        }
        const keyframes = atMost(joinKeyframes(run.map((f) => f.framing.keyframes)), label(piece), reasons);
        const lower = atMost(joinKeyframes(run.map((f) => f.framing.lower ?? [])), label(piece), reasons);
        piece.reframe = lower.length > 0 ? { keyframes, split: { keyframes: lower } } : { keyframes };
        const speed = piece.speed ?? 1;
        const trim = piece.trim ?? 0;
        for (const f of run) {
          shots.push({
            clipId: piece.id,
            start: r3(f.start),
            end: r3(f.end),
            timelineStart: r3(piece.start + (f.start - trim) / speed),
            timelineEnd: r3(piece.start + (f.end - trim) / speed),
            layout: f.framing.layout,
            subject: f.framing.subject,
            faces: f.framing.faces,
            samples: f.samples,
          });
          reasons.push(`${label(piece)}, shot ${r3(f.start)}–${r3(f.end)} s: ${f.framing.reason}`);
        }
      });
    }
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
  const summary = `reframed ${opts.aspectRatio}, ${shots.length} shot${shots.length === 1 ? "" : "s"}`;
  return { composition: doc, summary, shots, reasons };
}
