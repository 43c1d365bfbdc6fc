/**
 * How messages name a clip to a person: by its name, its upload's file name or its text, and
 * where it starts on the timeline ("cockatoo.mp4 at 0:06"), never by its id.
 */

/**
 * A timeline position as a person reads it: `m:ss`, or `h:mm:ss` from an hour (whole seconds,
 * rounded down; a hair under a second counts as the second).
 * @param seconds - position on the timeline, seconds (negative counts as 0).
 */
export function formatTimecode(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds + 1e-6));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The fields of a clip that {@link clipLabel} reads. */
export interface LabelledClip {
  start: number;
  name?: string | undefined;
  asset: { type: string; text?: string | undefined };
}

/**
 * A clip as a person would name it: `"<what> at <m:ss>"`, where what is the clip's `name`, else
 * `fileName` (its upload's file name, when known), else a text clip's text (quoted, cut at 30
 * characters), else its asset type ("color clip").
 */
export function clipLabel(clip: LabelledClip, fileName?: string | undefined): string {
  const text = clip.asset.type === "text" && clip.asset.text !== undefined ? clip.asset.text.trim() : "";
  const what =
    clip.name?.trim() ||
    fileName ||
    (text ? `text "${text.length > 30 ? `${text.slice(0, 29)}…` : text}"` : `${clip.asset.type} clip`);
  return `${what} at ${formatTimecode(clip.start)}`;
}
