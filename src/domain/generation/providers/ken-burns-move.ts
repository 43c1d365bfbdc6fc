/**
 * The Ken Burns move of the offline still→video model: which window of the still each frame
 * shows (a slow eased zoom-in with a drift), in source pixels.
 */

/** The part of the prepared still one output frame shows, in source pixels (sub-pixel floats). */
export interface KenBurnsWindow {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Largest zoom of the move: the last frame shows 1/1.15 of the still's width and height. */
export const KEN_BURNS_MAX_ZOOM = 1.15;

/**
 * Sine ease-in-out (0 → 1 with zero velocity at both ends): `0.5 − 0.5·cos(π·t)`.
 * @param t - progress 0..1 (clamped).
 */
export function easeInOutSine(t: number): number {
  const c = Math.min(1, Math.max(0, t));
  return 0.5 - 0.5 * Math.cos(Math.PI * c);
}

/**
 * The window of frame `n` of `frames` over a still of `srcWidth`×`srcHeight` pixels: the zoom
 * goes from 1 (the whole still) to {@link KEN_BURNS_MAX_ZOOM} while the centre drifts right and
 * up, both driven by the frame index through {@link easeInOutSine}. Positions are real numbers:
 * the resampler reads between pixels, so the motion has no integer steps.
 */
export function kenBurnsWindow(
  n: number,
  frames: number,
  srcWidth: number,
  srcHeight: number,
): KenBurnsWindow {
  const e = easeInOutSine(frames > 1 ? n / (frames - 1) : 0);
  const zoom = 1 + (KEN_BURNS_MAX_ZOOM - 1) * e;
  const width = srcWidth / zoom;
  const height = srcHeight / zoom;
  // Drift within the slack the final zoom leaves (60 % of it to the right, 40 % up).
  const slackX = (srcWidth - srcWidth / KEN_BURNS_MAX_ZOOM) / 2;
  const slackY = (srcHeight - srcHeight / KEN_BURNS_MAX_ZOOM) / 2;
  const cx = srcWidth / 2 + 0.6 * slackX * e;
  const cy = srcHeight / 2 - 0.4 * slackY * e;
  return { left: cx - width / 2, top: cy - height / 2, width, height };
}
