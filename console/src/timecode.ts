import { frameToSeconds, secondsToFrame, toFrameRate } from "../../src/domain/render/timeline.ts";

/**
 * Times as the editor shows and reads them, on the canvas frame grid. Frame `n` of a canvas at
 * `fps` frames per second starts at `n / fps` seconds, with the NTSC rates exact (23.976 is
 * 24000/1001, as the renderer plays them), so every time the editor writes is a frame start.
 */

/** Seconds rounded to the microsecond (what the timeline stores without float noise). */
export const microseconds = (t: number) => Math.round(t * 1e6) / 1e6;

/** The frame index nearest `t` seconds at `fps` frames per second (NTSC rates exact). */
export function frameAt(t: number, fps: number): number {
  return secondsToFrame(t, toFrameRate(fps));
}

/** The start of frame `n`, seconds (microseconds), at `fps` frames per second. */
export function frameStart(n: number, fps: number): number {
  return microseconds(frameToSeconds(n, toFrameRate(fps)));
}

/** `t` seconds moved to the nearest frame start at `fps` (never below 0). */
export function toFrameGrid(t: number, fps: number): number {
  return frameStart(Math.max(0, frameAt(t, fps)), fps);
}

/** The length of one frame at `fps`, seconds (not rounded). */
export function frameSeconds(fps: number): number {
  const r = toFrameRate(fps);
  return r.den / r.num;
}

/** The first frame of second `s` (frame starts at or after `s` seconds). */
function firstFrameOfSecond(s: number, fps: number): number {
  const r = toFrameRate(fps);
  return Math.ceil((s * r.num) / r.den - 1e-9);
}

/**
 * A time as timecode `m:ss.ff` (`h:mm:ss.ff` from an hour): whole seconds of the frame's start,
 * then `ff`, the frame's number within that second (from 00). At 23.976 fps frame 100 starts at
 * 4.170833 s and reads `0:04.04`. Times are taken to the nearest frame first.
 */
export function formatTimecode(t: number, fps: number): string {
  const n = Math.max(0, frameAt(t, fps));
  const r = toFrameRate(fps);
  let s = Math.floor((n * r.den) / r.num + 1e-9);
  if (firstFrameOfSecond(s, fps) > n) s -= 1;
  const ff = n - firstFrameOfSecond(s, fps);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  const frames = String(ff).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}.${frames}` : `${m}:${ss}.${frames}`;
}

/** A time the user typed: its seconds on the frame grid, or why it cannot be read. */
export type ParsedTime = { ok: true; seconds: number } | { ok: false; error: string };

const TIMECODE = /^(?:(\d+):)?(\d+):(\d{1,2})(?:[.:;](\d+))?$/;
const FRAMES = /^(\d+)\s*f$/i;
const SECONDS = /^(\d+(?:\.\d*)?|\.\d+)\s*s?$/i;

/**
 * Reads a time typed into a field, in any of the forms the editor accepts, and rounds it to the
 * frame grid of `fps`:
 * - timecode `m:ss.ff` or `h:mm:ss.ff` (`ff` frames within the second, as {@link formatTimecode}
 *   writes; `m:ss` alone is whole seconds);
 * - frames, `120f`;
 * - seconds, `4.171` or `4.171s` (any number of decimals).
 * Negative or malformed input, seconds of 60 or more in a timecode and a frame number beyond
 * the second's frames give an error sentence instead.
 */
export function parseTime(text: string, fps: number): ParsedTime {
  const v = text.trim();
  if (v === "") return { ok: false, error: "Enter a time: m:ss.ff, frames like 120f, or seconds." };
  const frames = FRAMES.exec(v);
  if (frames) return { ok: true, seconds: frameStart(Number(frames[1]), fps) };
  const secs = SECONDS.exec(v);
  if (secs) {
    const n = Number(secs[1]);
    if (Number.isFinite(n)) return { ok: true, seconds: toFrameGrid(n, fps) };
  }
  const tc = TIMECODE.exec(v);
  if (!tc) {
    return {
      ok: false,
      error: `“${v}” is not a time: write m:ss.ff (frames after the dot), frames like 120f, or seconds like 4.5.`,
    };
  }
  const h = Number(tc[1] ?? 0);
  const m = Number(tc[2]);
  const s = Number(tc[3]);
  const ff = Number(tc[4] ?? 0);
  if (tc[1] !== undefined && m >= 60) return { ok: false, error: `Minutes must be below 60 in “${v}”.` };
  if (s >= 60) return { ok: false, error: `Seconds must be below 60 in “${v}”.` };
  const whole = h * 3600 + m * 60 + s;
  const first = firstFrameOfSecond(whole, fps);
  const inSecond = firstFrameOfSecond(whole + 1, fps) - first;
  if (ff >= inSecond) {
    return {
      ok: false,
      error: `Frame ${ff} does not exist: second ${whole} has frames 00 to ${String(inSecond - 1).padStart(2, "0")} at ${fps} fps.`,
    };
  }
  return { ok: true, seconds: frameStart(first + ff, fps) };
}
