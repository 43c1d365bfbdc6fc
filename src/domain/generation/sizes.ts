/** fal's image-size presets and the pixels each stands for (width × height). */
export const IMAGE_SIZE_PRESETS = {
  square_hd: { width: 1024, height: 1024 },
  square: { width: 512, height: 512 },
  portrait_4_3: { width: 768, height: 1024 },
  portrait_16_9: { width: 576, height: 1024 },
  landscape_4_3: { width: 1024, height: 768 },
  landscape_16_9: { width: 1024, height: 576 },
} as const;

/** A preset name. */
export type ImageSizePreset = keyof typeof IMAGE_SIZE_PRESETS;

/** `imageSize` of a request: a preset or an exact size. */
export type ImageSize = ImageSizePreset | { width: number; height: number };

/** Pixels of an `imageSize`. */
export function imagePixels(size: ImageSize): { width: number; height: number } {
  return typeof size === "string" ? { ...IMAGE_SIZE_PRESETS[size] } : size;
}

/** The aspect ratios a still-to-video can have; `auto` picks the closest to the still. */
export const VIDEO_ASPECT_RATIOS = ["16:9", "9:16", "1:1"] as const;

/**
 * The aspect ratio `auto` means for a still of `width`×`height`: the closest of 16:9, 9:16 and
 * 1:1, by the distance of the logarithms of the ratios.
 */
export function closestAspectRatio(width: number, height: number): (typeof VIDEO_ASPECT_RATIOS)[number] {
  const r = Math.log(width / height);
  let best: (typeof VIDEO_ASPECT_RATIOS)[number] = "16:9";
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const ar of VIDEO_ASPECT_RATIOS) {
    const [w, h] = ar.split(":").map(Number) as [number, number];
    const d = Math.abs(Math.log(w / h) - r);
    if (d < bestDistance) {
      best = ar;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Frame size of a video: the short side is the resolution's lines (720 or 1080), the long side
 * follows the aspect ratio (`"16:9"` at 720p → 1280×720).
 */
export function videoPixels(resolution: string, aspectRatio: string): { width: number; height: number } {
  const lines = resolution === "1080p" ? 1080 : 720;
  const [w, h] = aspectRatio.split(":").map(Number) as [number, number];
  if (w === h) return { width: lines, height: lines };
  const long = Math.round((lines * Math.max(w, h)) / Math.min(w, h) / 2) * 2;
  return w > h ? { width: long, height: lines } : { width: lines, height: long };
}

/** Seconds of a duration option (`"8s"` → 8). */
export function durationSeconds(duration: string): number {
  return Number.parseInt(duration, 10);
}
