import { createRequire } from "node:module";
import { dirname, join } from "node:path";

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
 * Reads the family names of a TrueType/OpenType font (sfnt `name` table, name ids 1 and 16,
 * Windows Unicode or Mac Roman records), e.g. to register an uploaded font. Returns the
 * distinct names, typographic family (id 16) first; empty for non-sfnt data (WOFF, garbage).
 */
export function readFontFamilyNames(data: Uint8Array): string[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 16) return [];
  // 'ttcf': the first font of a collection.
  const font = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
  const nameOffset = tableOffset(view, font, 0x6e616d65); // 'name'
  if (nameOffset === undefined || nameOffset + 6 > data.byteLength) return [];
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

/**
 * libass selects a font's first Microsoft Unicode character map, BMP-only (3,1) or full (3,10),
 * and fonts list (3,1) first: with both, every character beyond U+FFFF (most emoji, e.g. 🎉
 * U+1F389) is "not found" and drawn as an empty box, although the font has it. For such a font
 * this returns a copy whose (3,1) encoding record points at the (3,10) subtable (a subtable may
 * be shared by several records; FreeType reads it by its format), so libass gets the full map.
 * Returns `undefined` when nothing needs changing: no `cmap`, no (3,10) subtable, (3,10) already
 * first or shared with (3,1), or not a single sfnt font (a collection or WOFF is left alone).
 *
 * @param data the font file (TrueType/OpenType)
 */
export function withFullUnicodeCmapFirst(data: Uint8Array): Uint8Array | undefined {
  const records = cmapRecords(data);
  if (records === undefined) return undefined;
  let bmp: CmapRecord | undefined;
  let full: CmapRecord | undefined;
  for (const rec of records) {
    if (rec.platform !== 3) continue;
    if (rec.encoding === 1 && !bmp && !full) bmp = rec;
    if (rec.encoding === 10) full ??= rec;
  }
  if (!bmp || !full || bmp.relative === full.relative) return undefined;
  const copy = new Uint8Array(data);
  new DataView(copy.buffer).setUint32(bmp.at + 4, full.relative);
  return copy;
}

/** Offset of table `tag` in the table directory of the font that starts at `font`, or `undefined`. */
function tableOffset(view: DataView, font: number, tag: number): number | undefined {
  if (font + 12 > view.byteLength) return undefined;
  const tables = view.getUint16(font + 4);
  for (let i = 0; i < tables; i++) {
    const rec = font + 12 + i * 16;
    if (rec + 16 > view.byteLength) return undefined;
    if (view.getUint32(rec) === tag) return view.getUint32(rec + 8);
  }
  return undefined;
}

/** One encoding record of a `cmap` table. */
interface CmapRecord {
  /** Offset of the record itself in the file. */
  at: number;
  platform: number;
  encoding: number;
  /** Offset of its subtable in the file. */
  subtable: number;
  /** Offset of its subtable from the start of the `cmap` table, as the record stores it. */
  relative: number;
}

/**
 * The encoding records of a single sfnt font's (`0x00010000`, `OTTO` or `true`) `cmap` table,
 * in file order, or `undefined` without one (a collection, WOFF, or records past the end).
 */
function cmapRecords(data: Uint8Array): CmapRecord[] | undefined {
  if (data.byteLength < 12) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(0);
  if (version !== 0x00010000 && version !== 0x4f54544f && version !== 0x74727565) return undefined;
  const cmap = tableOffset(view, 0, 0x636d6170); // 'cmap'
  if (cmap === undefined || cmap + 4 > data.byteLength) return undefined;
  const records: CmapRecord[] = [];
  for (let i = 0; i < view.getUint16(cmap + 2); i++) {
    const at = cmap + 4 + i * 8;
    if (at + 8 > data.byteLength) return undefined;
    const relative = view.getUint32(at + 4);
    records.push({
      at,
      platform: view.getUint16(at),
      encoding: view.getUint16(at + 2),
      subtable: cmap + relative,
      relative,
    });
  }
  return records;
}

/**
 * Reads the character map of a TrueType/OpenType font: the full-repertoire subtable (format 12,
 * (3,10) or Unicode (0,4)) when there is one, else the BMP one (format 4, (3,1) or (0,3)).
 * Returns a test "does the font have a glyph for this code point", or `undefined` when the data
 * is not a single sfnt font with such a subtable (e.g. a collection or WOFF).
 *
 * @param data the font file
 */
export function fontCoverage(data: Uint8Array): ((codePoint: number) => boolean) | undefined {
  const records = cmapRecords(data);
  if (records === undefined) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u16 = (at: number) => (at + 2 <= data.byteLength ? view.getUint16(at) : 0);
  const u32 = (at: number) => (at + 4 <= data.byteLength ? view.getUint32(at) : 0);
  let full: number | undefined;
  let bmp: number | undefined;
  for (const { platform, encoding, subtable } of records) {
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = u16(subtable);
    if (format === 12) full ??= subtable;
    if (format === 4) bmp ??= subtable;
  }
  if (full !== undefined) {
    const table = full;
    const groups = u32(table + 12);
    return (cp) => {
      let [lo, hi] = [0, groups - 1];
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const at = table + 16 + mid * 12;
        if (cp < u32(at)) hi = mid - 1;
        else if (cp > u32(at + 4)) lo = mid + 1;
        else return u32(at + 8) + (cp - u32(at)) !== 0;
      }
      return false;
    };
  }
  if (bmp === undefined) return undefined;
  const table = bmp;
  const segX2 = u16(table + 6);
  const ends = table + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const offsets = deltas + segX2;
  return (cp) => {
    if (cp > 0xffff) return false;
    for (let i = 0; i < segX2 / 2; i++) {
      if (cp > u16(ends + 2 * i)) continue;
      const start = u16(starts + 2 * i);
      if (cp < start) return false;
      const delta = u16(deltas + 2 * i);
      const rangeOffset = u16(offsets + 2 * i);
      if (rangeOffset === 0) return ((cp + delta) & 0xffff) !== 0;
      const glyph = u16(offsets + 2 * i + rangeOffset + 2 * (cp - start));
      return glyph !== 0 && ((glyph + delta) & 0xffff) !== 0;
    }
    return false;
  };
}
