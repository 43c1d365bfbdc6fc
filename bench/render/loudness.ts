/**
 * Loudness normalisation: how close renders land to the target, and what the measuring passes
 * cost (no API, no queue: the worker's own plan and passes):
 *
 *   node bench/render/loudness.ts [--seconds 60] [--target -14] [--true-peak -1]
 *
 * Generates talking-head sources of `--seconds` (LibriVox read speech under a 1280×720 30 fps
 * test picture) at several levels — quiet (−22 dB), as read, loud (+16 dB into a limiter), and
 * speech over a loud tone bed — and renders each as a `standard` mp4 twice in the same run:
 * without a loudness target, and with one (`measureRenderLoudness`' passes, then the plan with
 * the measured gain), as the render pipeline does. Prints, per source, the output's integrated
 * loudness and its error against the target (LU), its true peak (dBTP), the passes run, and the
 * wall and CPU seconds (user + system of the ffmpeg processes) of both renders with their
 * ratio; then the largest error, the highest true peak and the median ratios. On a shared
 * machine the CPU ratio is the figure; wall time follows the load.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import pino from "pino";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import { buildRenderPlan } from "../../src/domain/render/plan.ts";
import type { ResolvedAsset } from "../../src/domain/render/types.ts";
import { measureRenderLoudness } from "../../src/domain/render-jobs/render-loudness.ts";
import { writePlanFiles } from "../../src/domain/render-jobs/write-plan-files.ts";
import { runFfmpeg } from "../../src/media/ffmpeg-run.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { ffmpeg, loudness, tempDir } from "../../test/fixtures/render/media.ts";
import { speechTrack, utteranceFile } from "../../test/fixtures/speech.ts";

const run = promisify(execFile);
const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const SECONDS = option("--seconds", 60);
const TARGET = { integrated: option("--target", -14), truePeak: option("--true-peak", -1) };
const log = (msg: string) => process.stderr.write(`[loudness] ${msg}\n`);

/**
 * CPU seconds (user + system) of this process's finished child processes (every ffmpeg the
 * bench waited for): `cutime` + `cstime` of /proc/self/stat, in clock ticks of 1/100 s.
 */
async function childCpuSeconds(): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** The sources: name and the audio filters that make its level from the read speech. */
const SOURCES: [string, string][] = [
  ["quiet speech (-22 dB)", "volume=-22dB"],
  ["read speech (as is)", "anull"],
  ["loud speech (+16 dB, limited)", "volume=16dB,alimiter=limit=1:level=0"],
  [
    "speech over a loud tone bed",
    "volume=6dB[s];sine=f=110:r=16000,volume=0.3[b];[s][b]amix=inputs=2:duration=first:normalize=0",
  ],
];

const { dir, cleanup } = await tempDir("cutroom-bench-loudness-");
try {
  const speech = await speechTrack(
    ["0870", "0880", "0890", "0920", "0930"].map(utteranceFile),
    path.join(dir, "speech.wav"),
    0.6,
  );
  const rows: {
    name: string;
    integrated: number;
    error: number;
    truePeak: number;
    passes: number;
    plain: number;
    loud: number;
    plainCpu: number;
    loudCpu: number;
  }[] = [];
  for (const [i, [name, filters]] of SOURCES.entries()) {
    const file = path.join(dir, `source-${i}.mp4`);
    await ffmpeg([
      ...["-stream_loop", "-1", "-i", speech, "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30"],
      ...["-filter_complex", `[0:a]${filters}[a]`, "-map", "1:v", "-map", "[a]", "-t", String(SECONDS)],
      ...[
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-ar",
        "48000",
        file,
      ],
    ]);
    const assets = new Map<string, ResolvedAsset>([
      ["upl_src", { path: file, type: "video", media: await probeMedia(file) }],
    ]);
    const composition: Timeline = {
      canvas: { width: 1280, height: 720, fps: 30, background: "#000000" },
      tracks: [
        {
          id: "trk",
          kind: "video",
          clips: [{ id: "clp", start: 0, duration: SECONDS, asset: { type: "video", uploadId: "upl_src" } }],
        },
      ],
      audio: { loudness: TARGET },
    };
    const base = { composition, assets, output: { format: "mp4" as const, quality: "standard" as const } };
    const render = async (cwd: string, plan: ReturnType<typeof buildRenderPlan>) => {
      await writePlanFiles(plan, cwd);
      await runFfmpeg({
        args: plan.args,
        cwd,
        durationSec: plan.durationSec,
        signal: new AbortController().signal,
        stallTimeoutMs: 600_000,
      });
    };
    // Without a target: the plan as a render without `audio.loudness` builds it.
    const plainDir = path.join(dir, `plain-${i}`);
    await mkdir(plainDir);
    let started = performance.now();
    let cpu = await childCpuSeconds();
    await render(plainDir, buildRenderPlan({ ...base, outputPath: "out.mp4" }));
    const plain = (performance.now() - started) / 1000;
    const plainCpu = (await childCpuSeconds()) - cpu;
    // With it: the measuring passes, then the render with the gain.
    const loudDir = path.join(dir, `loud-${i}`);
    await mkdir(loudDir);
    started = performance.now();
    cpu = await childCpuSeconds();
    const measured = await measureRenderLoudness({
      base,
      target: TARGET,
      cwd: loudDir,
      signal: new AbortController().signal,
      deps: { log: pino({ level: "silent" }), stallTimeoutMs: 600_000 },
      logFields: {},
      refsByPath: new Map(),
    });
    await render(
      loudDir,
      buildRenderPlan({
        ...base,
        outputPath: "out.mp4",
        ...(measured.gain ? { loudness: { gain: measured.gain } } : {}),
      }),
    );
    const loud = (performance.now() - started) / 1000;
    const loudCpu = (await childCpuSeconds()) - cpu;
    const before = await loudness(path.join(plainDir, "out.mp4"));
    const got = await loudness(path.join(loudDir, "out.mp4"));
    const row = {
      name,
      integrated: got.integrated,
      error: got.integrated - TARGET.integrated,
      truePeak: got.truePeak,
      passes: measured.measured.length,
      plain,
      loud,
      plainCpu,
      loudCpu,
    };
    rows.push(row);
    const sign = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
    log(
      `${name}: ${before.integrated} LUFS / ${before.truePeak} dBTP → ${got.integrated} LUFS (${sign(row.error)} LU), ${got.truePeak} dBTP; ${row.passes} pass(es); wall ${plain.toFixed(1)} → ${loud.toFixed(1)} s, CPU ${plainCpu.toFixed(1)} → ${loudCpu.toFixed(1)} s (${(loudCpu / plainCpu).toFixed(3)}×)`,
    );
  }
  const medianOf = (values: number[]) => {
    const v = [...values].sort((a, b) => a - b);
    const mid = v.length / 2;
    return v.length % 2 ? (v[Math.floor(mid)] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
  };
  const median = medianOf(rows.map((r) => r.loud / r.plain));
  const medianCpu = medianOf(rows.map((r) => r.loudCpu / r.plainCpu));
  const worst = Math.max(...rows.map((r) => Math.abs(r.error)));
  const peak = Math.max(...rows.map((r) => r.truePeak));
  console.log(
    `\nLoudness normalisation, ${SECONDS} s sources, target ${TARGET.integrated} LUFS / ${TARGET.truePeak} dBTP, standard mp4`,
  );
  console.log(
    "| source | output LUFS | error LU | true peak dBTP | passes | wall s (none → target) | CPU s (none → target) | CPU ratio |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.integrated.toFixed(1)} | ${r.error >= 0 ? "+" : ""}${r.error.toFixed(1)} | ${r.truePeak.toFixed(1)} | ${r.passes} | ${r.plain.toFixed(1)} → ${r.loud.toFixed(1)} | ${r.plainCpu.toFixed(1)} → ${r.loudCpu.toFixed(1)} | ${(r.loudCpu / r.plainCpu).toFixed(3)}× |`,
    );
  }
  console.log(
    `\nlargest error ${worst.toFixed(1)} LU (target ±1: ${worst <= 1 ? "met" : "NOT met"}), highest true peak ${peak.toFixed(1)} dBTP (≤ ${TARGET.truePeak}: ${peak <= TARGET.truePeak ? "met" : "NOT met"}), median extra render time ${((medianCpu - 1) * 100).toFixed(1)} % in CPU (${medianCpu.toFixed(3)}×), ${((median - 1) * 100).toFixed(1)} % in wall time (${median.toFixed(3)}×)`,
  );
  const { stdout } = await run("cat", ["/proc/loadavg"]);
  console.log(`load average at the end: ${stdout.trim()}`);
} finally {
  await cleanup();
}
