import { Compile } from "typebox/compile";
import type { UploadRow } from "../../db/repositories/uploads.ts";
import { type ErrorDetail, invalidRequest } from "../../errors.ts";
import { bundledFamilyNames, bundledFonts } from "../fonts/fonts.ts";
import { clipLabel } from "./clip-label.ts";
import { compositionDuration, isShorterThanOneFrame, shorterThanOneFrameMessage } from "./duration.ts";
import { type RenderLimits, renderCostProblems } from "./limits.ts";
import {
  CANVAS_FPS,
  type ClipWrite,
  type CompositionWrite,
  CompositionWriteSchema,
  type TrackWrite,
} from "./schema.ts";

/** What validation needs to know about one upload (a subset of the Upload resource). */
export interface UploadInfo {
  type: UploadRow["type"];
  /** The file name, naming the clips that use it in messages. */
  name?: string;
  /** Probed media facts; `duration` in seconds (null for stills or unknown). */
  media?: {
    duration: number | null;
    hasAudio: boolean;
    width?: number | null;
    height?: number | null;
    fps?: number | null;
  } | null;
}

/**
 * Resolves upload ids for the caller: returns the uploads that exist **and belong to the
 * caller**; missing ids are simply absent from the map (another owner's upload must be absent).
 * Called at most once per validation, with every distinct id.
 */
export type LookupUpload = (uploadIds: string[]) => Promise<Map<string, UploadInfo>>;

/** What validation needs to know about one transcription (a subset of the Transcription resource). */
export interface TranscriptionInfo {
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
}

/**
 * Resolves transcription ids for the caller like {@link LookupUpload}: the transcriptions that
 * exist **and belong to the caller**; others are absent from the map. Called at most once per
 * validation, and only when some caption takes its cues from a transcription.
 */
export type LookupTranscription = (transcriptionIds: string[]) => Promise<Map<string, TranscriptionInfo>>;

/** Options of `validateComposition`. */
export interface ValidateOptions {
  lookupUpload: LookupUpload;
  lookupTranscription: LookupTranscription;
  /**
   * When given, text/caption families are checked: each must be bundled or one of the families
   * this returns (the caller's uploaded fonts), case-insensitively. Called at most once, and only
   * when some family is not bundled; `null` means the uploaded families cannot all be known, and
   * then only bundled names are sure (others pass, and the render checks them).
   */
  lookupFontFamilies?: () => Promise<readonly string[] | null>;
  /** When given, the canvas, timeline length and clip count must be within these render limits. */
  limits?: RenderLimits;
  /**
   * Upload ids the stored composition already used before this write. One of them that is not
   * found now (deleted since) leaves its clips as they are: the composition was already degraded
   * and the write is accepted. Any other unknown upload is refused.
   */
  alreadyUsed?: ReadonlySet<string>;
}

const checkStructure = Compile(CompositionWriteSchema);
const EPS = 1e-9;

/** Media asset types and the upload types each accepts (`audio` may take a video's sound). */
const ACCEPTED_UPLOADS: Record<"video" | "image" | "audio", (u: UploadInfo) => boolean> = {
  video: (u) => u.type === "video",
  image: (u) => u.type === "image",
  audio: (u) => u.type === "audio" || (u.type === "video" && u.media?.hasAudio === true),
};

/**
 * Validates a composition body (as the client sent it: paths use its indices) and throws one
 * `invalidRequest` (400 `invalid_request`) listing **every** problem as `{ path, message }`
 * (JSON Pointer into the body). Checks, in order:
 * 1. structure against `CompositionWriteSchema` (when that fails, only structural errors are reported);
 * 2. ranges: canvas even 16..4096 and an allowed fps, speed 0.25..4, volumes 0..4, fades within the
 *    clip, crop sums < 1, a reframe only on a video clip without crop and with increasing keyframe times, transform sizes > 0, opacity 0..1, cue `end > start`;
 * 3. timing: clips of one track never overlap (the message names both clip ids), a transition is
 *    no longer than its clip nor than what precedes it on the track (previous adjacent clip, or the
 *    gap before it; a track's first clip at 0 cannot have one);
 * 4. track kind vs asset (audio tracks hold audio assets only; video tracks hold no audio assets),
 *    unique track/clip/marker ids, ducking references to other existing tracks;
 * 5. render cost (with `limits`): canvas size and fps, timeline length, clips over all tracks;
 * 6. references, through one `lookupUpload` call: each `uploadId` exists for the caller with a
 *    matching type (video→video, image→image, audio→audio or a video with sound, caption
 *    source→subtitle), and a trim that starts inside the media; through one `lookupTranscription`
 *    call, each caption `source.transcriptionId` is a succeeded transcription of the caller;
 * 7. fonts (with `lookupFontFamilies`): each text/caption family is bundled or one of the caller's
 *    uploaded fonts (the message names the clip).
 * Template placeholders (`{{name}}`) pass where the schema allows them (see template.ts).
 * Resolves with nothing when valid. Never mutates `doc`.
 */
export async function validateComposition(doc: unknown, options: ValidateOptions): Promise<void> {
  if (!checkStructure.Check(doc)) {
    const details = dedupe(
      checkStructure.Errors(doc).map((e) => ({ path: e.instancePath || "/", message: e.message })),
    );
    throw invalidRequest("Composition is invalid", details);
  }
  const body = doc as CompositionWrite;
  const problems: ErrorDetail[] = [];
  const add: Add = (path, message, extra) => problems.push({ path, message, ...extra });
  const refs = uploadRefs(body);
  const uploads =
    refs.length > 0 ? await options.lookupUpload([...new Set(refs.map((r) => r.uploadId))]) : new Map();
  const label: Label = (t, c) => {
    const clip = body.tracks[t]?.clips[c];
    if (!clip) return `clip #${c} of track ${t}`;
    const ref = refs.find((r) => r.track === t && r.clip === c);
    return clipLabel(clip, ref ? uploads.get(ref.uploadId)?.name : undefined);
  };

  checkCanvas(body, add);
  const trackIds = new Map<string, number>();
  const clipIds = new Map<string, string>();
  body.tracks.forEach((track, t) => {
    if (track.id !== undefined) {
      if (trackIds.has(track.id)) add(`/tracks/${t}/id`, `duplicate track id "${track.id}"`);
      else trackIds.set(track.id, t);
    }
    track.clips.forEach((clip, c) => {
      if (clip.id === undefined) return;
      const seen = clipIds.get(clip.id);
      if (seen) add(`/tracks/${t}/clips/${c}/id`, `duplicate clip id "${clip.id}" (also at ${seen})`);
      else clipIds.set(clip.id, `/tracks/${t}/clips/${c}`);
    });
  });
  const markerIds = new Set<string>();
  body.markers?.forEach((m, i) => {
    if (m.id === undefined) return;
    if (markerIds.has(m.id)) add(`/markers/${i}/id`, `duplicate marker id "${m.id}"`);
    markerIds.add(m.id);
  });

  body.tracks.forEach((track, t) => {
    checkTrack(track, t, trackIds, add);
    track.clips.forEach((clip, c) => {
      checkClip(track, clip, `/tracks/${t}/clips/${c}`, add);
    });
    checkTiming(track, t, add, label);
  });
  if (options.lookupFontFamilies) await checkFontFamilies(body, options.lookupFontFamilies, add, label);
  const length = compositionDuration(body);
  if (isShorterThanOneFrame(length, body.canvas.fps)) {
    add(
      body.canvas.duration === undefined ? "/tracks" : "/canvas/duration",
      shorterThanOneFrameMessage(length, body.canvas.fps),
    );
  }

  if (options.limits) {
    const { width, height, fps, duration } = body.canvas;
    problems.push(
      ...renderCostProblems(
        {
          width,
          height,
          fps,
          durationSec: compositionDuration(body),
          clips: body.tracks.reduce((n, track) => n + track.clips.length, 0),
        },
        options.limits,
        {
          width: "/canvas/width",
          height: "/canvas/height",
          fps: "/canvas/fps",
          duration: duration === undefined ? "/tracks" : "/canvas/duration",
          clips: "/tracks",
        },
      ),
    );
  }
  checkReferences(refs, uploads, options.alreadyUsed ?? new Set(), add, label);
  await checkTranscriptions(body, options.lookupTranscription, add);
  if (problems.length > 0) throw invalidRequest(invalidSentence(body, problems, label), problems);
}

type Add = (path: string, message: string, extra?: { clipId?: string; uploadId?: string }) => void;
/** Names the clip at track `t`, index `c` of the body for a person ("cockatoo.mp4 at 0:06"). */
type Label = (t: number, c: number) => string;

/**
 * The error's sentence: the first problem in plain words, with the clip it is about named by
 * {@link Label} and the field it concerns ("Composition is invalid: cockatoo.mp4 at 0:06,
 * volume: must be 0..4 (and 1 more problem)").
 */
function invalidSentence(body: CompositionWrite, problems: ErrorDetail[], label: Label): string {
  const first = problems[0];
  if (!first) return "Composition is invalid";
  const m = /^\/tracks\/(\d+)\/clips\/(\d+)(?:\/(.*))?$/.exec(first.path);
  const field = (rest: string | undefined) => (rest ? rest.replaceAll("/", " ") : "");
  let where = first.path === "/" ? "" : first.path.slice(1).replaceAll("/", " ");
  if (m && body.tracks[Number(m[1])]?.clips[Number(m[2])]) {
    const clip = label(Number(m[1]), Number(m[2]));
    const f = field(m[3]);
    // A message that names the clip already needs no second label.
    where = first.message.includes(clip) ? "" : f ? `${clip}, ${f}` : clip;
  }
  const more = problems.length - 1;
  return `Composition is invalid: ${where ? `${where}: ` : ""}${first.message}${
    more > 0 ? ` (and ${more} more problem${more === 1 ? "" : "s"})` : ""
  }`;
}

function checkCanvas(body: CompositionWrite, add: Add): void {
  const { width, height, fps } = body.canvas;
  for (const [key, v] of [
    ["width", width],
    ["height", height],
  ] as const) {
    if (!Number.isInteger(v) || v % 2 !== 0 || v < 16 || v > 4096) {
      add(`/canvas/${key}`, "must be an even integer between 16 and 4096");
    }
  }
  if (!(CANVAS_FPS as readonly number[]).includes(fps))
    add("/canvas/fps", `must be one of ${CANVAS_FPS.join(", ")}`);
}

function checkTrack(track: TrackWrite, t: number, trackIds: Map<string, number>, add: Add): void {
  if (track.volume !== undefined && (track.volume < 0 || track.volume > 4))
    add(`/tracks/${t}/volume`, "must be 0..4");
  track.ducking?.under.forEach((id, i) => {
    const other = trackIds.get(id);
    if (other === undefined) add(`/tracks/${t}/ducking/under/${i}`, `no track with id "${id}"`);
    else if (other === t) add(`/tracks/${t}/ducking/under/${i}`, "a track cannot duck under itself");
  });
}

function checkClip(track: TrackWrite, clip: ClipWrite, path: string, add: Add): void {
  const asset = clip.asset;
  if (track.kind === "audio" && asset.type !== "audio") {
    add(`${path}/asset/type`, `an audio track holds audio assets only, not "${asset.type}"`);
  }
  if (track.kind === "video" && asset.type === "audio") {
    add(`${path}/asset/type`, "audio assets belong on an audio track");
  }
  if (asset.type === "video" || asset.type === "image" || asset.type === "audio") {
    if ((asset.uploadId === undefined) === (asset.src === undefined)) {
      add(`${path}/asset`, "needs exactly one of uploadId or src");
    }
  }
  if (asset.type === "caption" && "cues" in asset.source) {
    asset.source.cues.forEach((cue, i) => {
      if (!(cue.end > cue.start)) add(`${path}/asset/source/cues/${i}/end`, "must be greater than start");
    });
  }
  if (clip.speed !== undefined && (clip.speed < 0.25 || clip.speed > 4))
    add(`${path}/speed`, "must be 0.25..4");
  if (clip.freeze) {
    if (asset.type !== "video") add(`${path}/freeze`, "only a video clip can be frozen");
    if ((clip.speed ?? 1) !== 1)
      add(`${path}/speed`, "a frozen clip holds one frame: its speed must be 1 (or left out)");
  }
  if (clip.volume !== undefined && (clip.volume < 0 || clip.volume > 4))
    add(`${path}/volume`, "must be 0..4");
  const fadeIn = clip.fadeIn ?? 0;
  const fadeOut = clip.fadeOut ?? 0;
  if (fadeIn > clip.duration + EPS) add(`${path}/fadeIn`, "must not exceed the clip duration");
  if (fadeOut > clip.duration + EPS) add(`${path}/fadeOut`, "must not exceed the clip duration");
  if (fadeIn <= clip.duration && fadeOut <= clip.duration && fadeIn + fadeOut > clip.duration + EPS) {
    add(`${path}/fadeOut`, "fadeIn + fadeOut must not exceed the clip duration");
  }
  const crop = clip.crop;
  if (crop) {
    if ((crop.top ?? 0) + (crop.bottom ?? 0) >= 1) add(`${path}/crop/bottom`, "top + bottom must be < 1");
    if ((crop.left ?? 0) + (crop.right ?? 0) >= 1) add(`${path}/crop/right`, "left + right must be < 1");
  }
  if (clip.reframe) {
    if (asset.type !== "video") add(`${path}/reframe`, "only a video clip can be reframed");
    if (crop)
      add(`${path}/reframe`, "a reframed clip cannot also have a crop; the reframe window replaces it");
    const increasing = (keyframes: readonly { time: number }[], at: string) => {
      keyframes.forEach((k, i) => {
        const before = keyframes[i - 1];
        if (before && !(k.time > before.time))
          add(`${at}/${i}/time`, "must be greater than the previous keyframe's time");
      });
    };
    increasing(clip.reframe.keyframes, `${path}/reframe/keyframes`);
    if (clip.reframe.split) increasing(clip.reframe.split.keyframes, `${path}/reframe/split/keyframes`);
  }
  const tf = clip.transform;
  if (tf) {
    if (tf.width !== undefined && !(tf.width > 0)) add(`${path}/transform/width`, "must be > 0");
    if (tf.height !== undefined && !(tf.height > 0)) add(`${path}/transform/height`, "must be > 0");
    if (tf.opacity !== undefined && (tf.opacity < 0 || tf.opacity > 1))
      add(`${path}/transform/opacity`, "must be 0..1");
  }
  if (clip.transition && clip.transition.duration > clip.duration + EPS) {
    add(`${path}/transition/duration`, `must not exceed the clip duration (${clip.duration} s)`);
  }
}

function checkTiming(track: TrackWrite, t: number, add: Add, label: Label): void {
  // Sort indices (not the clips) so that paths keep the client's order.
  const order = track.clips
    .map((_, i) => i)
    .sort((a, b) => (track.clips[a]?.start ?? 0) - (track.clips[b]?.start ?? 0));
  const name = (i: number) => label(t, i);
  const ids = (i: number) => (track.clips[i]?.id ? { clipId: track.clips[i]?.id as string } : {});
  let prev: number | undefined;
  for (const i of order) {
    const clip = track.clips[i];
    if (!clip) continue;
    const path = `/tracks/${t}/clips/${i}`;
    const before = prev === undefined ? undefined : track.clips[prev];
    const prevEnd = before ? before.start + before.duration : 0;
    if (before && prev !== undefined && clip.start < prevEnd - EPS) {
      add(
        `${path}/start`,
        `${name(i)} overlaps ${name(prev)} on the same track (which ends at ${prevEnd} s)`,
        ids(i),
      );
    } else if (clip.transition) {
      const d = clip.transition.duration;
      const gap = clip.start - prevEnd;
      if (before && Math.abs(gap) <= EPS) {
        if (d > before.duration + EPS) {
          add(
            `${path}/transition/duration`,
            `must not exceed the previous clip ${name(prev ?? i)} (${before.duration} s)`,
            ids(i),
          );
        }
      } else if (d > gap + EPS) {
        add(
          `${path}/transition/duration`,
          gap <= EPS
            ? "the first clip of a track at 0 has nothing to transition from (use fadeIn)"
            : `must not exceed the ${gap} s gap before the clip`,
        );
      }
    }
    if (!before || clip.start + clip.duration > prevEnd) prev = i;
  }
}

/**
 * Text and caption families must be ones the renderer has: bundled (names and aliases) or the
 * caller's uploaded fonts. The message names the clip.
 */
async function checkFontFamilies(
  body: CompositionWrite,
  lookupFontFamilies: () => Promise<readonly string[] | null>,
  add: Add,
  label: Label,
): Promise<void> {
  const bundled = new Set(bundledFamilyNames().map((f) => f.toLowerCase()));
  const unknown: { path: string; clip: string; clipId: string | undefined; family: string }[] = [];
  body.tracks.forEach((track, t) => {
    track.clips.forEach((clip, c) => {
      const asset = clip.asset;
      if (asset.type !== "text" && asset.type !== "caption") return;
      if (bundled.has(asset.style.family.trim().toLowerCase())) return;
      unknown.push({
        path: `/tracks/${t}/clips/${c}/asset/style/family`,
        clip: label(t, c),
        clipId: clip.id,
        family: asset.style.family,
      });
    });
  });
  if (unknown.length === 0) return;
  const uploaded = await lookupFontFamilies();
  if (uploaded === null) return;
  const known = new Set(uploaded.map((f) => f.toLowerCase()));
  for (const u of unknown) {
    if (known.has(u.family.trim().toLowerCase())) continue;
    add(
      u.path,
      `${u.clip}: font family "${u.family}" is neither bundled (${bundledFonts()
        .map((f) => f.family)
        .join(", ")}) nor one of your uploaded fonts`,
      u.clipId ? { clipId: u.clipId } : {},
    );
  }
}

/** A clip's reference to an upload (media asset or caption source). */
interface UploadRef {
  track: number;
  clip: number;
  clipId: string | undefined;
  path: string;
  uploadId: string;
  accepts: (u: UploadInfo) => boolean;
  want: string;
  trim?: number;
}

function uploadRefs(body: CompositionWrite): UploadRef[] {
  const refs: UploadRef[] = [];
  body.tracks.forEach((track, t) => {
    track.clips.forEach((clip, c) => {
      const path = `/tracks/${t}/clips/${c}/asset`;
      const asset = clip.asset;
      const at = { track: t, clip: c, clipId: clip.id };
      if ((asset.type === "video" || asset.type === "image" || asset.type === "audio") && asset.uploadId) {
        refs.push({
          ...at,
          path: `${path}/uploadId`,
          uploadId: asset.uploadId,
          accepts: ACCEPTED_UPLOADS[asset.type],
          want: asset.type === "audio" ? "an audio upload (or a video with sound)" : `a ${asset.type} upload`,
          ...(clip.trim !== undefined ? { trim: clip.trim } : {}),
        });
      } else if (asset.type === "caption" && "uploadId" in asset.source) {
        refs.push({
          ...at,
          path: `${path}/source/uploadId`,
          uploadId: asset.source.uploadId,
          accepts: (u) => u.type === "subtitle",
          want: "a subtitle upload",
        });
      }
    });
  });
  return refs;
}

function checkReferences(
  refs: UploadRef[],
  uploads: Map<string, UploadInfo>,
  alreadyUsed: ReadonlySet<string>,
  add: Add,
  label: Label,
): void {
  for (const ref of refs) {
    const upload = uploads.get(ref.uploadId);
    const ids = { ...(ref.clipId ? { clipId: ref.clipId } : {}), uploadId: ref.uploadId };
    if (!upload) {
      // Deleted after the composition used it: already degraded, not made wrong by this write.
      if (alreadyUsed.has(ref.uploadId)) continue;
      add(ref.path, `upload ${ref.uploadId} was not found`, ids);
    } else if (!ref.accepts(upload)) {
      add(
        ref.path,
        `${label(ref.track, ref.clip)}: ${upload.name ?? `upload ${ref.uploadId}`} is a ${upload.type}; expected ${ref.want}`,
        ids,
      );
    } else if (
      ref.trim !== undefined &&
      upload.media?.duration != null &&
      ref.trim >= upload.media.duration
    ) {
      add(
        ref.path.replace(/\/asset\/uploadId$/, "/trim"),
        `starts after the end of the media (${upload.media.duration} s)`,
        ids,
      );
    }
  }
}

async function checkTranscriptions(
  body: CompositionWrite,
  lookupTranscription: LookupTranscription,
  add: Add,
): Promise<void> {
  const refs: { path: string; id: string }[] = [];
  body.tracks.forEach((track, t) => {
    track.clips.forEach((clip, c) => {
      const asset = clip.asset;
      if (asset.type === "caption" && "transcriptionId" in asset.source) {
        refs.push({
          path: `/tracks/${t}/clips/${c}/asset/source/transcriptionId`,
          id: asset.source.transcriptionId,
        });
      }
    });
  });
  if (refs.length === 0) return;
  const found = await lookupTranscription([...new Set(refs.map((r) => r.id))]);
  for (const ref of refs) {
    const status = found.get(ref.id)?.status;
    if (status === undefined) add(ref.path, `transcription ${ref.id} was not found`);
    else if (status === "queued" || status === "running") {
      add(
        ref.path,
        `transcription ${ref.id} is ${status}; captions need it to have succeeded (poll it first)`,
      );
    } else if (status !== "succeeded") {
      add(ref.path, `transcription ${ref.id} ${status}; captions need a succeeded transcription`);
    }
  }
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.path}\n${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
