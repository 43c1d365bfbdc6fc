import { POSTER_MAX_SIZE } from "./poster.ts";
import { MediaProbeError } from "./probe.ts";

/** MIME types {@link readImage} decodes in-process (libvips through sharp). */
export const IN_PROCESS_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/jpeg",
  "image/png",
  "image/apng",
  "image/gif",
  "image/webp",
  "image/tiff",
]);

/** Largest image {@link readImage} decodes, pixels (width × height): about 16k × 16k. */
const MAX_PIXELS = 268_402_689;

/** What {@link readImage} found. */
export interface ImageFacts {
  /**
   * Size of the (first frame of the) image as displayed, pixels: EXIF orientation applied (a
   * 4032x3024 phone photo tagged "rotate 90°" is 3024x4032), as ffmpeg decodes it for renders.
   */
  width: number;
  height: number;
  /** JPEG poster fitting in `maxSize`×`maxSize` (never enlarged), alpha flattened onto black. */
  poster: Buffer;
}

/**
 * Reads an image's size and renders its JPEG poster in this process with libvips (sharp), for
 * the formats of {@link IN_PROCESS_IMAGE_TYPES}: no ffprobe and ffmpeg processes, a few
 * milliseconds for a typical still. Decodes the whole first frame, so a damaged file fails here.
 * The size and the poster are as displayed: EXIF orientation applied, as ffmpeg applies it when
 * a render decodes the image.
 *
 * @param input - a local file path or the image's bytes.
 * @param opts.maxSize - longest side of the poster, pixels (default 640).
 * @throws MediaProbeError when the bytes are not a decodable image of those formats, or larger
 *   than about 268 megapixels.
 */
export async function readImage(
  input: string | Buffer,
  opts: { maxSize?: number } = {},
): Promise<ImageFacts> {
  const max = opts.maxSize ?? POSTER_MAX_SIZE;
  // libvips is loaded with the first image read, not by every process that imports this module.
  const { default: sharp } = await import("sharp");
  try {
    const image = sharp(input, { limitInputPixels: MAX_PIXELS, failOn: "error" });
    const meta = await image.metadata();
    // EXIF orientations 5–8 turn the picture a quarter: width and height swap on display.
    const quarterTurn = (meta.orientation ?? 1) >= 5;
    const storedWidth = meta.width;
    const storedHeight = meta.pageHeight ?? meta.height;
    if (!storedWidth || !storedHeight) throw new MediaProbeError("no picture found");
    const [width, height] = quarterTurn ? [storedHeight, storedWidth] : [storedWidth, storedHeight];
    const poster = await image
      .rotate()
      .resize(max, max, { fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#000000" })
      .jpeg({ quality: 80 })
      .toBuffer();
    if (poster.length === 0) throw new MediaProbeError("no frame could be decoded for the poster");
    return { width, height, poster };
  } catch (err) {
    if (err instanceof MediaProbeError) throw err;
    throw new MediaProbeError(`the image could not be decoded: ${(err as Error).message}`, { cause: err });
  }
}
