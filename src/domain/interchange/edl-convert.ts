import { invalidRequest } from "../../errors.ts";
import type {
  Asset,
  Canvas,
  Clip,
  ClipWrite,
  Composition,
  CompositionWrite,
  MediaAsset,
  TransitionType,
} from "../composition/schema.ts";
import { isMediaAsset, sourceRate } from "../composition/schema.ts";
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

/** The audio track (1…4) of an audio-only event: `A`/`AA` → 1, `A2` → 2…; null for other channels. */
function audioTrackOf(e: EdlEvent): number | null {
  const m = /^(?:AA|A(\d)?)$/i.exec(e.channels);
  if (!m) return null;
  const n = Number(m[1] ?? 1);
  return n >= 1 && n <= 4 ? n : null;
}

/** The media each event of an EDL uses (video, and audio-only events), by clip name (else reel), keyed `event 012`. */
export function listEdlMedia(edl: ParsedEdl): OtioMediaUse[] {
  return edl.events
    .filter((e) => (isVideo(e) || audioTrackOf(e) !== null) && !BLACK.test(e.reel))
    .map((e) => ({
      name: e.clipName || e.reel,
      targetUrl: "",
      audio: !isVideo(e),
      path: `event ${e.number}`,
    }));
}

/**
 * Converts a parsed EDL to a composition: its video events on one video track, its audio-only
 * events on audio tracks by channel (`A`/`AA` the first, `A2` the second… up to `A4`), its
 * `* LOC:` locators as markers. Record time starts at the hour of the first event
 * (01:00:00:00 → 0 s); a source timecode is the trim. A dissolve or wipe of n frames becomes a
 * transition of n frames centred `floor(n / 2)` frames after the EDL's record in (Cutroom
 * centres transitions on the cut); from black (`BL`) or after a gap it is a `fadeIn`; to black
 * a `fadeOut` over the dissolve, the outgoing clip running under it. `M2` gives `speed` (source
 * rate / canvas rate); `M2` of 0 (`000.0`, how a freeze frame is conformed) freezes a video
 * clip on its source in's frame. Events on other channels are warnings. `clipEvents[t][i]` names the
 * event clip `i` of track `t` came from ("event 012").
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
): { body: CompositionWrite; warnings: ImportWarning[]; clipEvents: string[][] } {
  const rate = timecodeRate(fps, edl.drop);
  const warnings: ImportWarning[] = [];
  const audioEvents = new Map<number, EdlEvent[]>();
  const video: EdlEvent[] = [];
  for (const e of edl.events) {
    const audio = isVideo(e) ? null : audioTrackOf(e);
    if (isVideo(e)) video.push(e);
    else if (audio !== null) audioEvents.set(audio, [...(audioEvents.get(audio) ?? []), e]);
    else warnings.push({ path: `event ${e.number}`, message: `event on channel ${e.channels} not carried` });
  }
  const all = [...video, ...[...audioEvents.values()].flat()];
  const first = Math.min(...(video.length ? video : all).map((e) => e.recIn));
  const hour = framesToTimecode(Number.isFinite(first) ? first : 0, rate).slice(0, 2);
  const origin = timecodeToFrames(`${hour}:00:00:00`, rate);
  const sec = (frames: number) => roundSeconds(frames / fps);

  /** One track's clips from its events, and the event each clip came from. */
  const trackOf = (events: EdlEvent[], audio: boolean) => {
    const clips: ClipWrite[] = [];
    const clipEvents: string[] = [];
    let lastEnd = Number.NaN;
    for (const e of [...events].sort((a, b) => a.recIn - b.recIn)) {
      const n = transitionFrames(e);
      const previous = clips.at(-1);
      const touching = previous !== undefined && e.recIn === lastEnd;
      if (BLACK.test(e.reel)) {
        // A dissolve to black: the outgoing clip runs under it, fading out.
        if (n > 0 && touching && previous) {
          previous.duration = roundSeconds(previous.duration + sec(n));
          previous.fadeOut = sec(n);
        }
        lastEnd = Number.NaN;
        continue;
      }
      const use = resolve(`event ${e.number}`);
      if (!use) {
        lastEnd = Number.NaN;
        continue; // left out on request ("unmatched"): its time stays empty
      }
      const asset: Asset = audio
        ? "src" in use
          ? { type: "audio", src: use.src }
          : { type: "audio", uploadId: use.uploadId }
        : "src" in use
          ? { type: "video", src: use.src }
          : { type: use.uploadType === "image" ? "image" : "video", uploadId: use.uploadId };
      const freeze = e.motionFps === 0 && asset.type === "video";
      const speed = e.motionFps !== null && e.motionFps > 0 ? e.motionFps / fps : 1;
      if (e.motionFps !== null && e.motionFps <= 0 && !freeze) {
        warnings.push({
          path: `event ${e.number}`,
          message:
            e.motionFps === 0
              ? `M2 0 (freeze frame) not carried: only a video clip can be frozen, not ${audio ? "an audio event" : `a ${asset.type} clip`}`
              : `M2 ${e.motionFps} not carried: Cutroom plays forward only`,
        });
      }
      const centred = n > 0 && touching && !(e.fromReel && BLACK.test(e.fromReel));
      const shift = centred ? Math.floor(n / 2) : 0;
      const clip: ClipWrite = {
        name: e.clipName || e.reel,
        start: sec(e.recIn - origin + shift),
        duration: roundSeconds(sec(e.recOut - origin) - sec(e.recIn - origin + shift)),
        asset,
      } as ClipWrite;
      const trim = roundSeconds((e.srcIn + (freeze ? 0 : shift * speed)) / fps);
      if (trim > 0) clip.trim = trim;
      if (speed !== 1) clip.speed = roundSeconds(speed);
      if (freeze) clip.freeze = true;
      if (centred && previous) {
        previous.duration = roundSeconds(sec(e.recIn - origin + shift) - previous.start);
        const type =
          e.edit.kind === "wipe" ? (WIPES[Number(e.edit.code.slice(1)) - 1] ?? "wipeleft") : "dissolve";
        if (e.edit.kind === "wipe" && !WIPES[Number(e.edit.code.slice(1)) - 1]) {
          warnings.push({
            path: `event ${e.number}`,
            message: `wipe ${e.edit.code} read as W001 (wipeleft)`,
          });
        }
        clip.transition = { type, duration: sec(n) };
      } else if (n > 0) {
        clip.fadeIn = sec(n);
      }
      clips.push(clip);
      clipEvents.push(`event ${e.number}`);
      lastEnd = e.recOut;
    }
    return { clips, clipEvents };
  };

  const built = [
    { kind: "video" as const, name: undefined, ...trackOf(video, false) },
    ...[...audioEvents.keys()]
      .sort((a, b) => a - b)
      .map((n) => ({ kind: "audio" as const, name: `A${n}`, ...trackOf(audioEvents.get(n) ?? [], true) })),
  ];
  const body: CompositionWrite = {
    name: (overrides.name ?? edl.title) || "Imported EDL",
    canvas: { width: 1920, height: 1080, background: "#000000", ...overrides.canvas, fps },
    tracks: built.map((t) => ({ kind: t.kind, ...(t.name ? { name: t.name } : {}), clips: t.clips })),
  };
  const markers = edl.locators.flatMap((l) => {
    if (l.frame >= origin) return [{ time: sec(l.frame - origin), label: l.label.slice(0, 500) }];
    warnings.push({ path: l.line, message: "locator before the first event's hour not carried" });
    return [];
  });
  if (markers.length) body.markers = markers;
  if (overrides.projectId !== undefined) body.projectId = overrides.projectId;
  return { body, warnings, clipEvents: built.map((t) => t.clipEvents) };
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

/** The channel of an audio track's events: A, A2, A3, A4 (CMX 3600's A and A2, as extended EDLs number more). */
const audioChannel = (index: number) => (index === 0 ? "A" : `A${index + 1}`);
/** Audio tracks an EDL carries. */
const MAX_AUDIO_TRACKS = 4;

/**
 * Writes one video track of a composition, its audio tracks and its markers as a CMX 3600 EDL
 * at the canvas rate (drop-frame at 29.97 and 59.94), record time from 01:00:00:00: an event
 * per media clip (reel `AX`, the upload's name as `* FROM CLIP NAME`), `D` for dissolves and
 * fades, `Wnnn` for wipes, `M2` for speed ≠ 1, `M2` of `000.0` for a frozen clip (its source
 * in the held frame, its source out one frame later), a dissolve from `BL` for a `fadeIn` and to `BL`
 * for a `fadeOut`. The video track's events have channel `V`; the audio tracks' (up to four,
 * in order) `A`, `A2`, `A3`, `A4`. Markers are `* LOC: <timecode> <colour> <label>` comments
 * (Resolve's locators), after the event they fall in. What an EDL cannot hold (colour, text
 * and caption clips, a fade-out into a transition, audio tracks past the fourth) is named in a
 * comment.
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
  let number = 0;
  /** Markers still to write: each after the first event whose record out passes it. */
  const markers = [...(composition.markers ?? [])]
    .map((m) => ({ at: origin + frames(m.time), label: m.label.replace(/[\r\n]+/g, " ") }))
    .sort((a, b) => a.at - b.at);
  const locators = (until: number) => {
    while (markers.length && (markers[0]?.at ?? 0) < until) {
      const m = markers.shift();
      if (m) out.push(`* LOC: ${tc(m.at)} RED     ${m.label}`);
    }
  };
  const writeTrack = (clipsIn: readonly Clip[], channel: string) => {
    const clips = [...clipsIn].sort((a, b) => a.start - b.start);
    const line = (reel: string, code: string, length: number | null, times: number[]) =>
      `${String(number).padStart(3, "0")}  ${reel.padEnd(8)} ${channel.padEnd(5)} ${code.padEnd(4)} ${length === null ? "   " : String(length).padStart(3, "0")} ${times.map(tc).join(" ")}`;
    const touches = (a: Clip | undefined, b: Clip | undefined) =>
      !!a && !!b && Math.abs(a.start + a.duration - b.start) < 1e-6;
    clips.forEach((clip, i) => {
      if (!isMediaAsset(clip.asset)) {
        out.push(`* ${clip.asset.type} clip ${clip.name ?? clip.id} at ${clip.start} s not carried`, "");
        return;
      }
      const name = media(clip.asset).name;
      const speed = sourceRate(clip);
      const previous = clips[i - 1];
      const next = clips[i + 1];
      const n = clip.transition && touches(previous, clip) ? frames(clip.transition.duration) : 0;
      const shift = Math.floor(n / 2);
      const nextShift =
        next?.transition && touches(clip, next) ? Math.floor(frames(next.transition.duration) / 2) : 0;
      const recIn = origin + frames(clip.start) - shift;
      const recEnd = origin + frames(clip.start + clip.duration) - nextShift;
      // A fade-out is a dissolve to black, unless the next clip's transition overlaps it or it
      // spans the whole event (a clip event needs a frame of its own before the dissolve).
      const fadeOut =
        clip.fadeOut && nextShift === 0 && frames(clip.fadeOut) < recEnd - recIn ? frames(clip.fadeOut) : 0;
      const recOut = recEnd - fadeOut;
      const srcIn = frames(clip.trim ?? 0) - Math.round(shift * speed);
      // A freeze's source is its one held frame.
      const srcOut = clip.freeze ? srcIn + 1 : srcIn + Math.round((recOut - recIn) * speed);
      number += 1;
      if (n > 0 && previous) {
        const prevOut = previous.freeze
          ? frames(previous.trim ?? 0)
          : frames((previous.trim ?? 0) + (clip.start - previous.start) * sourceRate(previous)) - shift;
        out.push(line("AX", "C", null, [prevOut, prevOut, recIn, recIn]));
        const type = clip.transition?.type ?? "dissolve";
        const wipe = WIPES.indexOf(type);
        out.push(
          line("AX", wipe >= 0 ? `W${String(wipe + 1).padStart(3, "0")}` : "D", n, [
            srcIn,
            srcOut,
            recIn,
            recOut,
          ]),
        );
      } else if (clip.fadeIn) {
        out.push(line("BL", "C", null, [0, 0, recIn, recIn]));
        out.push(line("AX", "D", frames(clip.fadeIn), [srcIn, srcOut, recIn, recOut]));
      } else {
        out.push(line("AX", "C", null, [srcIn, srcOut, recIn, recOut]));
      }
      if (speed !== 1)
        out.push(
          `M2   ${"AX".padEnd(8)} ${(speed * fps).toFixed(1).padStart(5, "0")}                ${tc(srcIn)}`,
        );
      out.push(n > 0 || clip.fadeIn ? `* TO CLIP NAME: ${name}` : `* FROM CLIP NAME: ${name}`);
      if (clip.fadeOut && !fadeOut)
        out.push(
          `* fade-out of ${clip.fadeOut} s not carried: ${nextShift ? "the next clip's transition overlaps it" : "it spans the whole clip"}`,
        );
      if (channel === "V") locators(recOut);
      out.push("");
      if (fadeOut > 0) {
        number += 1;
        const srcEnd = clip.freeze ? srcIn : srcOut;
        out.push(line("AX", "C", null, [srcEnd, srcEnd, recOut, recOut]));
        out.push(line("BL", "D", fadeOut, [0, fadeOut, recOut, recEnd]));
        out.push(`* FROM CLIP NAME: ${name}`);
        if (channel === "V") locators(recEnd);
        out.push("");
      }
    });
  };
  writeTrack(composition.tracks[trackIndex]?.clips ?? [], "V");
  locators(Number.POSITIVE_INFINITY);
  const audio = composition.tracks.filter((t) => t.kind === "audio" && t.clips.length > 0);
  audio.forEach((track, i) => {
    if (i < MAX_AUDIO_TRACKS) writeTrack(track.clips, audioChannel(i));
    else
      out.push(`* audio track ${track.name ?? track.id} not carried: an EDL holds ${MAX_AUDIO_TRACKS}`, "");
  });
  return `${out.join("\r\n")}\r\n`;
}
