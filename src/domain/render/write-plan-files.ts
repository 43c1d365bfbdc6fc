import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { withFullUnicodeCmapFirst } from "./fonts.ts";
import type { RenderPlan } from "./plan.ts";

/**
 * Prepares a render's working directory for `plan`: writes `plan.files` (ASS, large graph
 * script) and creates the per-render fontsdir holding exactly `plan.fonts` (symlinks, or
 * copies where symlinks fail; a font whose character map libass would misread is written as the
 * corrected copy of `withFullUnicodeCmapFirst`, so that emoji beyond U+FFFF are found). Run ffmpeg with `cwd = workDir` afterwards. Creates `workDir` when
 * missing; the caller deletes it after the render.
 */
export async function writePlanFiles(plan: RenderPlan, workDir: string): Promise<void> {
  await mkdir(workDir, { recursive: true });
  for (const file of plan.files) {
    const target = join(workDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content, "utf8");
  }
  if (plan.fontsDir) await mkdir(join(workDir, plan.fontsDir), { recursive: true });
  for (const font of plan.fonts) {
    const target = join(workDir, font.path);
    await mkdir(dirname(target), { recursive: true });
    const fixed = withFullUnicodeCmapFirst(await readFile(font.source));
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
}
