import { invalidRequest } from "../../errors.ts";
import type {
  Asset,
  Canvas,
  ClipWrite,
  Composition,
  CompositionWrite,
  MediaAsset,
  TransitionType,
} from "../composition/schema.ts";
import { isMediaAsset } from "../composition/schema.ts";
import { type ResolvedMedia, roundSeconds } from "./common.ts";
import type { EdlEvent, ParsedEdl } from "./edl.ts";
import type { OtioMediaUse, ResolvedUse } from "./otio-import.ts";
import type { ImportWarning } from "./otio-items.ts";
import { framesToTimecode, timecodeRate, timecodeToFrames } from "./timecode.ts";

/** SMPTE wipe codes Cutroom writes and reads, in order W001, W002…; others read as `wipeleft`. */
const WIPES: TransitionType[] = ["wipeleft", "wiperight", "wipeup", "wipedown"];
const BLACK = /^(BL|BLK|BLACK)$/i;
const isVideo = (e: EdlEvent) => /V|B/i.test(e.channels);
/** Frames of an event's transition, 0 for a cut. */
const transitionFrames = (e: EdlEvent) => (e.edit.kind === "cut" ? 0 : e.edit.frames);

/** The media each video event of an EDL uses, by clip name (else reel), keyed `event 012`. */
export function listEdlMedia(edl: ParsedEdl): OtioMediaUse[] {
  return edl.events
    .filter((e) => isVideo(e) && !BLACK.test(e.reel))
    .map((e) => ({ name: e.clipName || e.reel, targetUrl: "", audio: false, path: `event ${e.number}` }));
}

/**
 * Converts a parsed EDL to a composition with one video track. Record time starts at the hour
 * of the first event (01:00:00:00 → 0 s); a source timecode is the trim. A dissolve or wipe of
 * n frames becomes a transition of n frames centred `floor(n / 2)` frames after the EDL's
 * record in (Cutroom centres transitions on the cut); from black (`BL`) or after a gap it is a
 * `fadeIn`, to black a `fadeOut`. `M2` gives `speed` (source rate / canvas rate). Audio-only
 * events are warnings. `clipEvents[i]` names the event clip `i` came from ("event 012").
 */
export function edlToComposition(
  edl: ParsedEdl,
  fps: Canvas["fps"],
  resolve: (eventPath: string) => ResolvedUse | undefined,
  overrides: {
    name?: string | undefined;
    projectId?: string | null | undefined;
    canvas?: Partial<Canvas> | undefined;
  },
): { body: CompositionWrite; warnings: ImportWarning[]; clipEvents: string[] } {
  const rate = timecodeRate(fps, edl.drop);
  const warnings: ImportWarning[] = [];
  const video = edl.events.filter((e) => {
    if (!isVideo(e))
      warnings.push({ path: `event ${e.number}`, message: `audio-only event (${e.channels}) not carried` });
    return isVideo(e);
  });
  const first = Math.min(...video.map((e) => e.recIn));
  const hour = framesToTimecode(Number.isFinite(first) ? first : 0, rate).slice(0, 2);
  const origin = timecodeToFrames(`${hour}:00:00:00`, rate);
  const sec = (frames: number) => roundSeconds(frames / fps);
  const clips: ClipWrite[] = [];
  /** The event each clip came from, for error messages. */
  const clipEvents: string[] = [];
  let lastEnd = Number.NaN;
  for (const e of [...video].sort((a, b) => a.recIn - b.recIn)) {
    const n = transitionFrames(e);
    const previous = clips.at(-1);
    const touching = previous !== undefined && e.recIn === lastEnd;
    if (BLACK.test(e.reel)) {
      if (n > 0 && touching && previous) previous.fadeOut = sec(n);
      lastEnd = Number.NaN;
      continue;
    }
    const use = resolve(`event ${e.number}`);
    if (!use) {
      lastEnd = Number.NaN;
      continue; // left out on request ("unmatched"): its time stays empty
    }
    const speed = e.motionFps !== null && e.motionFps > 0 ? e.motionFps / fps : 1;
    if (e.motionFps !== null && e.motionFps <= 0) {
      warnings.push({
        path: `event ${e.number}`,
        message: `M2 ${e.motionFps} not carried: Cutroom plays forward only`,
      });
    }
    const asset: Asset =
      "src" in use
        ? { type: "video", src: use.src }
        : { type: use.uploadType === "image" ? "image" : "video", uploadId: use.uploadId };
    const centred = n > 0 && touching && !(e.fromReel && BLACK.test(e.fromReel));
    const shift = centred ? Math.floor(n / 2) : 0;
    const clip: ClipWrite = {
      name: e.clipName || e.reel,
      start: sec(e.recIn - origin + shift),
      duration: roundSeconds(sec(e.recOut - origin) - sec(e.recIn - origin + shift)),
      asset,
    } as ClipWrite;
    const trim = roundSeconds((e.srcIn + shift * speed) / fps);
    if (trim > 0) clip.trim = trim;
    if (speed !== 1) clip.speed = roundSeconds(speed);
    if (centred && previous) {
      previous.duration = roundSeconds(sec(e.recIn - origin + shift) - previous.start);
      const type =
        e.edit.kind === "wipe" ? (WIPES[Number(e.edit.code.slice(1)) - 1] ?? "wipeleft") : "dissolve";
      if (e.edit.kind === "wipe" && !WIPES[Number(e.edit.code.slice(1)) - 1]) {
        warnings.push({ path: `event ${e.number}`, message: `wipe ${e.edit.code} read as W001 (wipeleft)` });
      }
      clip.transition = { type, duration: sec(n) };
    } else if (n > 0) {
      clip.fadeIn = sec(n);
    }
    clips.push(clip);
    clipEvents.push(`event ${e.number}`);
    lastEnd = e.recOut;
  }
  const body: CompositionWrite = {
    name: (overrides.name ?? edl.title) || "Imported EDL",
    canvas: { width: 1920, height: 1080, background: "#000000", ...overrides.canvas, fps },
    tracks: [{ kind: "video", clips }],
  };
  if (overrides.projectId !== undefined) body.projectId = overrides.projectId;
  return { body, warnings, clipEvents };
}

/**
 * The video track an EDL export carries: `track` (an index into `tracks`) when given, else the
 * only video track with clips.
 * @throws AppError 400 when `track` is not a video track, or when several video tracks have
 *   clips and none was picked (the message lists them).
 */
export function edlTrack(composition: Composition, track: number | undefined): number {
  const candidates = composition.tracks.flatMap((t, i) =>
    t.kind === "video" && t.clips.length > 0 ? [i] : [],
  );
  if (track !== undefined) {
    if (composition.tracks[track]?.kind !== "video") {
      throw invalidRequest(`track ${track} is not a video track of the composition`, [
        { path: "/querystring/track", message: "must be the index of a video track" },
      ]);
    }
    return track;
  }
  if (candidates.length <= 1) return candidates[0] ?? composition.tracks.findIndex((t) => t.kind === "video");
  const list = candidates.map(
    (i) => `${i}${composition.tracks[i]?.name ? ` (${composition.tracks[i]?.name})` : ""}`,
  );
  throw invalidRequest(
    `An EDL holds one video track and this composition has ${candidates.length} with clips: ${list.join(", ")}; pick one with ?track=<index>`,
    [{ path: "/querystring/track", message: `required: one of ${candidates.join(", ")}` }],
  );
}

/**
 * Writes one video track of a composition as a CMX 3600 EDL at the canvas rate (drop-frame
 * at 29.97 and 59.94), record time from 01:00:00:00: an event per media clip (reel `AX`, the
 * upload's name as `* FROM CLIP NAME`), `D` for dissolves and fades, `Wnnn` for wipes, `M2`
 * for speed ≠ 1, a dissolve from `BL` for a `fadeIn`. Clips without media (colour, text,
 * captions) are left out with a comment.
 */
export function compositionToEdl(
  composition: Composition,
  media: (asset: MediaAsset) => ResolvedMedia,
  trackIndex: number,
): string {
  const fps = composition.canvas.fps;
  const rate = timecodeRate(fps, true);
  const tc = (f: number) => framesToTimecode(Math.max(0, f), rate);
  const origin = timecodeToFrames("01:00:00:00", rate);
  const frames = (s: number) => Math.round(s * fps);
  const out = [
    `TITLE: ${composition.name.replace(/[\r\n]+/g, " ").slice(0, 70)}`,
    `FCM: ${rate.drop ? "DROP FRAME" : "NON-DROP FRAME"}`,
    "",
  ];
  const clips = [...(composition.tracks[trackIndex]?.clips ?? [])].sort((a, b) => a.start - b.start);
  let number = 0;
  const line = (code: string, length: number | null, times: number[]) =>
    `${String(number).padStart(3, "0")}  ${"AX".padEnd(8)} V     ${code.padEnd(4)} ${length === null ? "   " : String(length).padStart(3, "0")} ${times.map(tc).join(" ")}`;
  clips.forEach((clip, i) => {
    if (!isMediaAsset(clip.asset)) {
      out.push(`* ${clip.asset.type} clip ${clip.name ?? clip.id} at ${clip.start} s not carried`, "");
      return;
    }
    const name = media(clip.asset).name;
    const speed = clip.speed ?? 1;
    const previous = clips[i - 1];
    const touching = previous && Math.abs(previous.start + previous.duration - clip.start) < 1e-6;
    const n = clip.transition && touching ? frames(clip.transition.duration) : 0;
    const shift = Math.floor(n / 2);
    const next = clips[i + 1];
    const nextShift =
      next?.transition && Math.abs(clip.start + clip.duration - next.start) < 1e-6
        ? Math.floor(frames(next.transition.duration) / 2)
        : 0;
    const recIn = origin + frames(clip.start) - shift;
    const recOut = origin + frames(clip.start + clip.duration) - nextShift;
    const srcIn = frames(clip.trim ?? 0) - Math.round(shift * speed);
    const srcOut = srcIn + Math.round((recOut - recIn) * speed);
    number += 1;
    if (n > 0 && previous) {
      const prevOut =
        frames((previous.trim ?? 0) + (clip.start - previous.start) * (previous.speed ?? 1)) - shift;
      out.push(line("C", null, [prevOut, prevOut, recIn, recIn]));
      const type = clip.transition?.type ?? "dissolve";
      const wipe = WIPES.indexOf(type);
      out.push(
        line(wipe >= 0 ? `W${String(wipe + 1).padStart(3, "0")}` : "D", n, [srcIn, srcOut, recIn, recOut]),
      );
    } else if (clip.fadeIn) {
      out.push(line("C", null, [0, 0, recIn, recIn]).replace("AX      ", "BL      "));
      out.push(line("D", frames(clip.fadeIn), [srcIn, srcOut, recIn, recOut]));
    } else {
      out.push(line("C", null, [srcIn, srcOut, recIn, recOut]));
    }
    if (speed !== 1)
      out.push(
        `M2   ${"AX".padEnd(8)} ${(speed * fps).toFixed(1).padStart(5, "0")}                ${tc(srcIn)}`,
      );
    out.push(n > 0 || clip.fadeIn ? `* TO CLIP NAME: ${name}` : `* FROM CLIP NAME: ${name}`, "");
  });
  return `${out.join("\r\n")}\r\n`;
}
