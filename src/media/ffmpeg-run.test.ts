import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/fixtures/render/media.ts";
import { ffmpegFailures } from "../metrics/process-metrics.ts";
import { FfmpegError, type FfmpegProgress, runFfmpeg } from "./ffmpeg-run.ts";

let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-ffmpeg-run-"));
});
afterAll(() => cleanup());

const base = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-progress", "pipe:1", "-nostats"];

/** PIDs of ffmpeg processes whose command line contains `marker`. */
function ffmpegPids(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes("ffmpeg") && l.includes(marker))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe("runFfmpeg", () => {
  it("reports monotonic progress with speed and ETA and ends at ratio 1", async () => {
    const seen: FfmpegProgress[] = [];
    const result = await runFfmpeg({
      args: [
        ...base,
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=25:d=2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        join(dir, "ok.mp4"),
      ],
      durationSec: 2,
      onProgress: (p) => seen.push(p),
    });
    expect(result.elapsedMs).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)?.ratio).toBe(1);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]?.ratio).toBeGreaterThanOrEqual(seen[i - 1]?.ratio ?? 0);
    expect(seen.some((p) => p.speed !== undefined && p.etaSeconds !== undefined)).toBe(true);
  });

  it("kills ffmpeg within 2 s of an abort and rejects with ABORTED", async () => {
    const controller = new AbortController();
    const marker = "abort-marker.mp4";
    let abortedAt = 0;
    const run = runFfmpeg({
      args: [
        ...base,
        "-re",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=25",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        join(dir, marker),
      ],
      durationSec: 3600,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.outTimeSec > 0.2 && !abortedAt) {
          abortedAt = Date.now();
          controller.abort();
        }
      },
    });
    await expect(run).rejects.toMatchObject({ code: "ABORTED" });
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    expect(ffmpegPids(marker)).toEqual([]);
  });

  it("fails with TIMEOUT when ffmpeg makes no progress, and leaves no process behind", async () => {
    const fifo = join(dir, "stall.fifo");
    execFileSync("mkfifo", [fifo]);
    const started = Date.now();
    const error = await runFfmpeg({
      args: [...base, "-i", fifo, "-f", "null", "-"],
      durationSec: 10,
      stallTimeoutMs: 500,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).code).toBe("TIMEOUT");
    expect(Date.now() - started).toBeLessThan(2500);
    expect(ffmpegPids("stall.fifo")).toEqual([]);
  });

  it("fails with FFMPEG_FAILED and the stderr tail on a broken input, and counts the failure", async () => {
    const failures = async () =>
      (await ffmpegFailures.get()).values.find((v) => v.labels.code === "FFMPEG_FAILED")?.value ?? 0;
    const before = await failures();
    const broken = join(dir, "broken.mp4");
    await writeFile(broken, Buffer.from("this is not a video file at all"));
    const error = (await runFfmpeg({
      args: [...base, "-i", broken, "-f", "null", "-"],
      durationSec: 1,
    }).catch((e: unknown) => e)) as FfmpegError;
    expect(error).toBeInstanceOf(FfmpegError);
    expect(error.code).toBe("FFMPEG_FAILED");
    expect(error.stderrTail).toMatch(/Invalid data|broken\.mp4/);
    expect(error.message).toContain("ffmpeg exited with");
    expect(await failures()).toBe(before + 1);
  });

  it("hands every stderr line, whole and trimmed, to onStderrLine", async () => {
    const lines: string[] = [];
    const result = await runFfmpeg({
      args: [
        ...base.map((a) => (a === "error" ? "info" : a)),
        ...["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=1", "-f", "null", "-"],
      ],
      durationSec: 1,
      onStderrLine: (line) => lines.push(line),
    });
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.some((l) => l.startsWith("Input #0, lavfi"))).toBe(true);
    for (const l of lines) expect(l).toBe(l.trim());
    expect(lines.every((l) => l.length > 0 && !l.includes("\n"))).toBe(true);
    // The tail is the same text, line for line.
    expect(result.stderrTail.endsWith(lines.at(-1) ?? "?")).toBe(true);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runFfmpeg({ args: base, durationSec: 1, signal: controller.signal })).rejects.toMatchObject({
      code: "ABORTED",
    });
  });
});
