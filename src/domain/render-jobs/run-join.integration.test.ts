import { execFile } from "node:child_process";
import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/fixtures/render/media.ts";
import { buildJoinPlan } from "../render/segments.ts";
import { toFrameRate } from "../render/timeline.ts";
import { runJoin } from "./run-join.ts";

const run = promisify(execFile);

let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-join-"));
  const ffmpeg = (args: string[]) => run("ffmpeg", ["-v", "error", "-y", ...args], { cwd: dir });
  for (const [name, color] of [
    ["a.mp4", "red"],
    ["b.mp4", "blue"],
  ] as const) {
    await ffmpeg([
      ...["-f", "lavfi", "-i", `color=c=${color}:s=64x36:r=25:d=1`],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-an", name],
    ]);
  }
  await ffmpeg(["-f", "lavfi", "-i", "sine=d=2:r=48000", "-c:a", "aac", "audio.m4a"]);
});
afterAll(() => cleanup());

/** The top-level boxes of an mp4 file, in order. */
async function boxes(file: string): Promise<string[]> {
  const f = await open(file);
  const out: string[] = [];
  try {
    const header = Buffer.alloc(16);
    let at = 0;
    const size = (await f.stat()).size;
    while (at < size) {
      await f.read(header, 0, 16, at);
      let length = header.readUInt32BE(0);
      out.push(header.toString("latin1", 4, 8));
      if (length === 1) length = Number(header.readBigUInt64BE(8));
      if (length < 8) break;
      at += length;
    }
  } finally {
    await f.close();
  }
  return out;
}

describe("runJoin", () => {
  const segments = [
    { startFrame: 0, endFrame: 25, file: "a.mp4" },
    { startFrame: 25, endFrame: 50, file: "b.mp4" },
  ];

  it("writes the header first into the space it kept", async () => {
    const plan = buildJoinPlan(segments, toFrameRate(25), "kept.mp4", "audio.m4a", "kept.ffconcat");
    for (const f of plan.files) await writeFile(join(dir, f.path), f.content);
    await runJoin({ args: plan.args, cwd: dir, durationSec: 2, log: pino({ level: "silent" }) });
    const kept = await boxes(join(dir, "kept.mp4"));
    expect(kept.slice(0, 2)).toEqual(["ftyp", "moov"]);
    expect(kept.at(-1)).toBe("mdat");
  });

  it("joins again with +faststart when the kept space was too small (ffmpeg exits 0 with a cut header)", async () => {
    const plan = buildJoinPlan(segments, toFrameRate(25), "small.mp4", "audio.m4a", "small.ffconcat");
    for (const f of plan.files) await writeFile(join(dir, f.path), f.content);
    const args = plan.args.map((a, i) => (plan.args[i - 1] === "-moov_size" ? "64" : a));
    const warnings: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => warnings.push(line) });
    await runJoin({ args, cwd: dir, durationSec: 2, log });
    expect(warnings.join("")).toMatch(/joining again with \+faststart/);
    const small = await boxes(join(dir, "small.mp4"));
    expect(small.slice(0, 2)).toEqual(["ftyp", "moov"]);
    expect(small.at(-1)).toBe("mdat");
    const { stderr } = await run("ffmpeg", [
      "-v",
      "error",
      "-xerror",
      "-i",
      join(dir, "small.mp4"),
      "-f",
      "null",
      "-",
    ]);
    expect(stderr).toBe("");
  });
});
