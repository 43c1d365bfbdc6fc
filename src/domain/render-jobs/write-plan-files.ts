import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fontCoverage, withFullUnicodeCmapFirst } from "../fonts/fonts.ts";
import type { RenderPlan } from "../render/plan.ts";
import type { RenderWarning } from "../render/types.ts";

/**
 * Prepares a render's working directory for `plan`: writes `plan.files` (ASS, large graph
 * script) and creates the per-render fontsdir holding exactly `plan.fonts` (symlinks, or
 * copies where symlinks fail; a font whose character map libass would misread is written as the
 * corrected copy of `withFullUnicodeCmapFirst`, so that emoji beyond U+FFFF are found).
 * Returns `GLYPH_MISSING` warnings for characters of text clips that their font lacks. Run ffmpeg with `cwd = workDir` afterwards. Creates `workDir` when
 * missing; the caller deletes it after the render.
 */
export async function writePlanFiles(plan: RenderPlan, workDir: string): Promise<RenderWarning[]> {
  await mkdir(workDir, { recursive: true });
  for (const file of plan.files) {
    const target = join(workDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content, "utf8");
  }
  if (plan.fontsDir) await mkdir(join(workDir, plan.fontsDir), { recursive: true });
  const data = new Map<string, Uint8Array>();
  for (const font of plan.fonts) {
    const target = join(workDir, font.path);
    await mkdir(dirname(target), { recursive: true });
    const bytes = await readFile(font.source);
    data.set(font.source, bytes);
    const fixed = withFullUnicodeCmapFirst(bytes);
    if (fixed) {
      await writeFile(target, fixed);
      continue;
    }
    try {
      await symlink(font.source, target);
    } catch {
      await copyFile(font.source, target);
    }
  }
  return missingGlyphWarnings(plan, data);
}

/** Most characters a `GLYPH_MISSING` message lists. */
const LISTED = 8;

/**
 * One `GLYPH_MISSING` warning per clip and font that draws characters the font does not have
 * (libass only falls back to fonts installed on the machine, so they usually come out as empty
 * boxes). Fonts whose character map cannot be read (e.g. WOFF) are not checked.
 */
function missingGlyphWarnings(plan: RenderPlan, data: ReadonlyMap<string, Uint8Array>): RenderWarning[] {
  const coverage = new Map<string, ReturnType<typeof fontCoverage>>();
  const warnings: RenderWarning[] = [];
  for (const use of plan.glyphs) {
    if (!coverage.has(use.path)) {
      const bytes = data.get(use.path);
      coverage.set(use.path, bytes ? fontCoverage(bytes) : undefined);
    }
    const has = coverage.get(use.path);
    if (!has) continue;
    const missing = [...use.characters].filter((ch) => !has(ch.codePointAt(0) as number));
    if (missing.length === 0) continue;
    const listed = missing
      .slice(0, LISTED)
      .map((ch) => `${ch} (U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")})`)
      .join(", ");
    warnings.push({
      code: "GLYPH_MISSING",
      message: `font "${use.family}" has no glyph for ${listed}${missing.length > LISTED ? ` and ${missing.length - LISTED} more` : ""}: drawn as an empty box unless a font installed on the render machine has it; upload a font that covers it`,
      clipId: use.clipId,
    });
  }
  return warnings;
}
