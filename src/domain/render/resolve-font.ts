import { bundledFonts, type FontFace } from "../fonts/fonts.ts";
import { RenderError, type UploadedFont } from "./types.ts";

/** A family resolved to the one file that best matches the requested weight/slant. */
export interface ResolvedFont {
  /** The family name to write into the ASS style (matches the font's name table). */
  family: string;
  path: string;
  source: "bundled" | "upload";
  uploadId?: string;
}

/**
 * Maps a text style's `family` to one font file, case-insensitively: uploaded fonts first (an
 * upload may shadow a bundled family), then bundled families and their aliases. Among the faces
 * of the family, picks the nearest weight with the requested slant (CSS-like).
 *
 * @throws RenderError `FONT_NOT_FOUND` (with `clipId` when given) for an unknown family; there is
 *   never a silent fallback to another family.
 */
export function resolveFont(
  family: string,
  uploadedFonts: readonly UploadedFont[],
  options: { weight?: number; italic?: boolean; clipId?: string } = {},
): ResolvedFont {
  const wanted = family.trim().toLowerCase();
  const weight = options.weight ?? 400;
  const italic = options.italic ?? false;
  const uploads = uploadedFonts.filter((f) => f.family.toLowerCase() === wanted);
  if (uploads.length > 0) {
    const face = pickFace(
      uploads.map((u) => ({ path: u.path, weight: u.weight ?? 400, italic: u.italic ?? false, upload: u })),
      weight,
      italic,
    );
    return {
      family: face.upload.family,
      path: face.path,
      source: "upload",
      ...(face.upload.uploadId ? { uploadId: face.upload.uploadId } : {}),
    };
  }
  const set = bundledFonts().find(
    (f) => f.family.toLowerCase() === wanted || f.aliases.some((a) => a.toLowerCase() === wanted),
  );
  if (!set) {
    throw new RenderError(
      "FONT_NOT_FOUND",
      `${options.clipId ? `clip ${options.clipId}: font` : "Font"} family "${family}" is neither bundled (${bundledFonts()
        .map((f) => f.family)
        .join(", ")}) nor uploaded; upload the font or use one of those`,
      options.clipId ? { clipId: options.clipId } : {},
    );
  }
  const face = pickFace(set.faces, weight, italic);
  return { family: set.family, path: face.path, source: "bundled" };
}

function pickFace<F extends FontFace>(faces: readonly F[], weight: number, italic: boolean): F {
  let best = faces[0] as F;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const face of faces) {
    const score = Math.abs(face.weight - weight) + (face.italic === italic ? 0 : 1000);
    if (score < bestScore) {
      best = face;
      bestScore = score;
    }
  }
  return best;
}
