import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderKenBurns } from "./ken-burns.ts";

const dir = mkdtempSync(path.join(tmpdir(), "ken-burns-"));
const still = path.join(dir, "still.png");
execFileSync("ffmpeg", [
  "-v",
  "error",
  "-f",
  "lavfi",
  "-i",
  "testsrc2=size=640x360",
  "-frames:v",
  "1",
  still,
]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("renderKenBurns cancelled mid-encode", () => {
  it("rejects with ABORTED and leaves no unhandled rejection behind", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      for (const at of [0.05, 0.3]) {
        const controller = new AbortController();
        const run = renderKenBurns({
          input: still,
          output: path.join(dir, `out-${at}.mp4`),
          width: 1920,
          height: 1080,
          fps: 24,
          duration: 5,
          signal: controller.signal,
          onProgress: (ratio) => {
            if (ratio >= at) controller.abort();
          },
        });
        await expect(run).rejects.toMatchObject({ code: "ABORTED" });
        // Rejections of the frame writes surface after the encoder's pipe breaks.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled.map(String)).toEqual([]);
  });
});
