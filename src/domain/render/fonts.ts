import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { RenderError, type UploadedFont } from "./types.ts";

/** One font file of a family: CSS weight 100..900 and slant. */
export interface FontFace {
  path: string;
  weight: number;
  italic: boolean;
}

/** A bundled family: the name libass matches (the font's own family name), aliases, faces, licence. */
export interface BundledFamily {
  family: string;
  aliases: string[];
  faces: FontFace[];
  /** npm package that ships the files (its version is pinned by package-lock.json). */
  packageName: string;
  license: string;
}

/** A family resolved to the one file that best matches the requested weight/slant. */
export interface ResolvedFont {
  /** The family name to write into the ASS style (matches the font's name table). */
  family: string;
  path: string;
  source: "bundled" | "upload";
  uploadId?: string;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

let bundled: BundledFamily[] | undefined;

/**
 * The bundled font set: DejaVu Sans / Serif / Sans Mono (package `dejavu-fonts-ttf`, Bitstream
 * Vera licence + public domain changes) and Noto Emoji, monochrome (package
 * `@expo-google-fonts/noto-emoji`, SIL OFL 1.1). Aliases: `sans`/`sans-serif`, `serif`,
 * `mono`/`monospace`, `emoji`. Files live in node_modules, so `npm ci` restores them.
 */
export function bundledFonts(): BundledFamily[] {
  if (bundled) return bundled;
  const dejavu = join(packageDir("dejavu-fonts-ttf"), "ttf");
  const emoji = packageDir("@expo-google-fonts/noto-emoji");
  const dv = (file: string, weight: number, italic: boolean): FontFace => ({
    path: join(dejavu, file),
    weight,
    italic,
  });
  const dejavuLicense =
    "Bitstream Vera Fonts licence; DejaVu changes public domain (dejavu-fonts-ttf/LICENSE)";
  bundled = [
    {
      family: "DejaVu Sans",
      aliases: ["sans", "sans-serif"],
      faces: [
        dv("DejaVuSans.ttf", 400, false),
        dv("DejaVuSans-Bold.ttf", 700, false),
        dv("DejaVuSans-Oblique.ttf", 400, true),
        dv("DejaVuSans-BoldOblique.ttf", 700, true),
      ],
      packageName: "dejavu-fonts-ttf",
      license: dejavuLicense,
    },
    {
      family: "DejaVu Serif",
      aliases: ["serif"],
      faces: [
        dv("DejaVuSerif.ttf", 400, false),
        dv("DejaVuSerif-Bold.ttf", 700, false),
        dv("DejaVuSerif-Italic.ttf", 400, true),
        dv("DejaVuSerif-BoldItalic.ttf", 700, true),
      ],
      packageName: "dejavu-fonts-ttf",
      license: dejavuLicense,
    },
    {
      family: "DejaVu Sans Mono",
      aliases: ["mono", "monospace"],
      faces: [
        dv("DejaVuSansMono.ttf", 400, false),
        dv("DejaVuSansMono-Bold.ttf", 700, false),
        dv("DejaVuSansMono-Oblique.ttf", 400, true),
        dv("DejaVuSansMono-BoldOblique.ttf", 700, true),
      ],
      packageName: "dejavu-fonts-ttf",
      license: dejavuLicense,
    },
    {
      family: "Noto Emoji",
      aliases: ["emoji"],
      faces: [
        { path: join(emoji, "400Regular", "NotoEmoji_400Regular.ttf"), weight: 400, italic: false },
        { path: join(emoji, "700Bold", "NotoEmoji_700Bold.ttf"), weight: 700, italic: false },
      ],
      packageName: "@expo-google-fonts/noto-emoji",
      license: "SIL Open Font License 1.1 (@expo-google-fonts/noto-emoji/LICENSE_FONT)",
    },
  ];
  return bundled;
}

/** How many of an account's font uploads (the newest) a render loads, and text styles may name. */
export const MAX_UPLOADED_FONTS = 100;

/** The family used for emoji runs inside text of any other family. */
export const EMOJI_FAMILY = "Noto Emoji";

/** Family names callers may use without uploading anything (canonical names and aliases). */
export function bundledFamilyNames(): string[] {
  return bundledFonts().flatMap((f) => [f.family, ...f.aliases]);
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
      `Font family "${family}" is neither bundled (${bundledFonts()
        .map((f) => f.family)
        .join(", ")}) nor uploaded`,
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

/**
 * Reads the family names of a TrueType/OpenType font (sfnt `name` table, name ids 1 and 16,
 * Windows Unicode or Mac Roman records), e.g. to register an uploaded font. Returns the
 * distinct names, typographic family (id 16) first; empty for non-sfnt data (WOFF, garbage).
 */
export function readFontFamilyNames(data: Uint8Array): string[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 12) return [];
  let offset = 0;
  if (view.getUint32(0) === 0x74746366) offset = view.getUint32(12); // 'ttcf': first font of a collection
  if (offset + 12 > data.byteLength) return [];
  const tables = view.getUint16(offset + 4);
  let nameOffset = -1;
  for (let i = 0; i < tables; i++) {
    const rec = offset + 12 + i * 16;
    if (rec + 16 > data.byteLength) return [];
    if (view.getUint32(rec) === 0x6e616d65) nameOffset = view.getUint32(rec + 8); // 'name'
  }
  if (nameOffset < 0 || nameOffset + 6 > data.byteLength) return [];
  const count = view.getUint16(nameOffset + 2);
  const strings = nameOffset + view.getUint16(nameOffset + 4);
  const byId = new Map<number, string[]>();
  for (let i = 0; i < count; i++) {
    const rec = nameOffset + 6 + i * 12;
    if (rec + 12 > data.byteLength) break;
    const platform = view.getUint16(rec);
    const nameId = view.getUint16(rec + 6);
    if (nameId !== 1 && nameId !== 16) continue;
    const length = view.getUint16(rec + 8);
    const start = strings + view.getUint16(rec + 10);
    if (start + length > data.byteLength) continue;
    const bytes = data.subarray(start, start + length);
    let text: string;
    if (platform === 3 || platform === 0) {
      let s = "";
      for (let j = 0; j + 1 < bytes.length; j += 2)
        s += String.fromCharCode(((bytes[j] ?? 0) << 8) | (bytes[j + 1] ?? 0));
      text = s;
    } else if (platform === 1) {
      text = String.fromCharCode(...bytes);
    } else continue;
    const list = byId.get(nameId) ?? [];
    list.push(text.trim());
    byId.set(nameId, list);
  }
  return [...new Set([...(byId.get(16) ?? []), ...(byId.get(1) ?? [])])].filter((s) => s.length > 0);
}
