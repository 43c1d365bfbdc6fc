import { invalidRequest } from "../../errors.ts";

/** How a frame rate counts timecode: its nominal whole rate and whether labels are dropped. */
export interface TimecodeRate {
  /** Frames per second as played (29.97 is 30000/1001). */
  fps: number;
  /** Frames per timecode second: 24, 25, 30, 50, 60 (23.976 counts 24, 29.97 counts 30). */
  base: number;
  /** Drop-frame: 29.97 and 59.94 skip labels 00 and 01 (00–03 at 59.94) each minute but every tenth. */
  drop: boolean;
}

/**
 * The timecode of a canvas frame rate. Drop-frame applies to 29.97 and 59.94 only.
 * @param fps - frames per second (23.976, 24, 25, 29.97, 30, 50, 59.94, 60…).
 */
export function timecodeRate(fps: number, drop: boolean): TimecodeRate {
  const base = Math.round(fps);
  return { fps, base, drop: drop && (base === 30 || base === 60) && Math.abs(fps - base) > 0.001 };
}

const dropped = (rate: TimecodeRate) => (rate.base === 60 ? 4 : 2);
const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Frame count → `HH:MM:SS:FF` (`HH:MM:SS;FF` in drop-frame). Hours wrap at 24.
 * @param frames - whole frames from 00:00:00:00, ≥ 0.
 */
export function framesToTimecode(frames: number, rate: TimecodeRate): string {
  let n = Math.round(frames);
  if (rate.drop) {
    const drop = dropped(rate);
    const perTenMinutes = rate.base * 600 - drop * 9;
    const perMinute = rate.base * 60 - drop;
    const tens = Math.floor(n / perTenMinutes);
    const rest = n % perTenMinutes;
    n += drop * 9 * tens + (rest > drop ? drop * Math.floor((rest - drop) / perMinute) : 0);
  }
  const f = n % rate.base;
  const s = Math.floor(n / rate.base) % 60;
  const m = Math.floor(n / (rate.base * 60)) % 60;
  const h = Math.floor(n / (rate.base * 3600)) % 24;
  return `${pad(h)}:${pad(m)}:${pad(s)}${rate.drop ? ";" : ":"}${pad(f)}`;
}

/**
 * `HH:MM:SS:FF` (or `;`/`.`/`,` before the frames) → frame count.
 * @throws AppError 400 for a malformed timecode, frames ≥ the base rate, or a label drop-frame
 *   skips (`00:01:00;00`); `where` names it ("event 012: …").
 */
export function timecodeToFrames(tc: string, rate: TimecodeRate, where = "timecode"): number {
  const match = /^(\d{2}):(\d{2}):(\d{2})[:;.,](\d{2})$/.exec(tc);
  const fail = (why: string) =>
    invalidRequest(`${where}: ${why}`, [{ path: "/edl", message: `${where}: ${why}` }]);
  if (!match) throw fail(`"${tc}" is not a timecode (HH:MM:SS:FF)`);
  const [h, m, s, f] = match.slice(1).map(Number) as [number, number, number, number];
  if (m > 59 || s > 59 || f >= rate.base)
    throw fail(`"${tc}" is out of range at ${rate.base} frames per second`);
  let n = ((h * 60 + m) * 60 + s) * rate.base + f;
  if (rate.drop) {
    const drop = dropped(rate);
    if (s === 0 && f < drop && m % 10 !== 0) throw fail(`"${tc}" does not exist in drop-frame timecode`);
    const minutes = h * 60 + m;
    n -= drop * (minutes - Math.floor(minutes / 10));
  }
  return n;
}
