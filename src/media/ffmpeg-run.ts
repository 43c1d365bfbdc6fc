import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { ffmpegFailures } from "../metrics/process-metrics.ts";

/** Progress of a running ffmpeg, from `-progress pipe:1`. */
export interface FfmpegProgress {
  /** 0..1, never decreasing: `out_time_us / 1e6 / durationSec`, capped at 1. */
  ratio: number;
  /** Output time reached, seconds. */
  outTimeSec: number;
  /** Encoding speed as a multiple of real time (`speed=2.5x` → 2.5), when ffmpeg reports it. */
  speed?: number;
  /** Seconds left at the current speed, when known. */
  etaSeconds?: number;
  /** Frames written so far (video outputs). */
  frame?: number;
}

/** Why `runFfmpeg` failed: a non-zero exit, no progress for too long, or the caller's abort. */
export type FfmpegErrorCode = "FFMPEG_FAILED" | "TIMEOUT" | "ABORTED";

/**
 * A failed ffmpeg run. `stderrTail` holds the last lines ffmpeg wrote to stderr; `exitCode` its
 * exit status, or `signal` the signal that ended it (e.g. `SIGKILL` from the out-of-memory killer).
 */
export class FfmpegError extends Error {
  readonly code: FfmpegErrorCode;
  readonly stderrTail: string;
  readonly exitCode: number | null;
  readonly signal: string | null;

  constructor(
    code: FfmpegErrorCode,
    message: string,
    opts: { stderrTail?: string; exitCode?: number | null; signal?: string | null } = {},
  ) {
    super(message);
    this.name = "FfmpegError";
    this.code = code;
    this.stderrTail = opts.stderrTail ?? "";
    this.exitCode = opts.exitCode ?? null;
    this.signal = opts.signal ?? null;
  }
}

/** Options of `runFfmpeg`. */
export interface RunFfmpegOptions {
  /** Arguments after the binary; must include `-progress pipe:1` for progress and stall detection. */
  args: readonly string[];
  /** Working directory (relative paths of the plan resolve here). */
  cwd?: string;
  /** Expected output duration, seconds (ratio denominator). */
  durationSec: number;
  /** Aborting kills ffmpeg (SIGTERM, then SIGKILL after `killGraceMs`); rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Called on each progress block (about twice a second) and once with ratio 1 on success. */
  onProgress?: (progress: FfmpegProgress) => void;
  /** Fail with `TIMEOUT` when the output time has not advanced for this long (ms). Default 60 000. */
  stallTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL (ms). Default 1 000, so ffmpeg is gone within ~1 s. */
  killGraceMs?: number;
  /** Binary to run. Default `ffmpeg` from PATH. */
  ffmpegPath?: string;
  /** Called with every complete stderr line (trimmed, non-empty), as ffmpeg writes it. */
  onStderrLine?: (line: string) => void;
  /**
   * Makes ffmpeg's file descriptor 3 a pipe (the plan writes its output to `pipe:3`) and gives
   * its reading end here right after the start, to stream the output while it is written. A
   * kill (abort, stall) destroys it, so a reader that stopped reading cannot keep ffmpeg alive.
   */
  onOutputPipe?: (output: Readable) => void;
}

/** Outcome of a successful run. */
export interface RunFfmpegResult {
  elapsedMs: number;
  /** Last lines of stderr (warnings), possibly empty. */
  stderrTail: string;
}

const TAIL_BYTES = 4096;

/**
 * Runs ffmpeg once and resolves when it exits with 0. Parses `-progress pipe:1` key=value
 * blocks (`out_time_us`, `speed`, `frame`) into a monotonic ratio with speed and ETA. Settles
 * only after the process has exited, so when it rejects no ffmpeg is left running. Failures are
 * counted on `cutroom_ffmpeg_failures_total` by code.
 *
 * @throws FfmpegError `ABORTED` when `signal` aborts (also if already aborted), `TIMEOUT` when
 *   no progress for `stallTimeoutMs`, `FFMPEG_FAILED` on a non-zero exit or a spawn error
 *   (message and `stderrTail` carry ffmpeg's last stderr lines).
 */
export function runFfmpeg(options: RunFfmpegOptions): Promise<RunFfmpegResult> {
  return spawnFfmpeg(options).catch((err: unknown) => {
    if (err instanceof FfmpegError) ffmpegFailures.inc({ code: err.code });
    throw err;
  });
}

function spawnFfmpeg(options: RunFfmpegOptions): Promise<RunFfmpegResult> {
  const stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
  const killGraceMs = options.killGraceMs ?? 1_000;
  const started = Date.now();
  return new Promise<RunFfmpegResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new FfmpegError("ABORTED", "ffmpeg was not started: the render was cancelled"));
      return;
    }
    const child = spawn(options.ffmpegPath ?? "ffmpeg", [...options.args], {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe", options.onOutputPipe ? "pipe" : "ignore"],
    }) as ChildProcessByStdio<null, Readable, Readable>;
    const output = options.onOutputPipe ? (child.stdio[3] as Readable) : undefined;
    if (output) options.onOutputPipe?.(output);
    let stderr = "";
    let stdoutBuffer = "";
    let failure: FfmpegError | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let lastRatio = 0;
    let lastOutUs = -1;
    let block: Record<string, string> = {};

    const kill = (error: FfmpegError) => {
      if (failure) return;
      failure = error;
      child.kill("SIGTERM");
      output?.destroy();
      killTimer = setTimeout(() => child.kill("SIGKILL"), killGraceMs);
    };
    let stallTimer = setTimeout(() => onStall(), stallTimeoutMs);
    const onStall = () =>
      kill(
        new FfmpegError("TIMEOUT", `ffmpeg made no progress for ${stallTimeoutMs} ms`, {
          stderrTail: tail(stderr),
        }),
      );
    const onAbort = () => kill(new FfmpegError("ABORTED", "ffmpeg was stopped: the render was cancelled"));
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const emit = () => {
      const outUs = Number(block.out_time_us ?? block.out_time_ms ?? Number.NaN);
      if (Number.isFinite(outUs) && outUs > lastOutUs) {
        lastOutUs = outUs;
        clearTimeout(stallTimer);
        stallTimer = setTimeout(onStall, stallTimeoutMs);
      }
      if (!options.onProgress || !Number.isFinite(outUs)) return;
      const outTimeSec = Math.max(0, outUs / 1e6);
      const ratio = options.durationSec > 0 ? Math.min(1, outTimeSec / options.durationSec) : 0;
      lastRatio = Math.max(lastRatio, ratio);
      const progress: FfmpegProgress = { ratio: lastRatio, outTimeSec };
      const speed = Number.parseFloat((block.speed ?? "").replace("x", ""));
      if (Number.isFinite(speed) && speed > 0) {
        progress.speed = speed;
        progress.etaSeconds = Math.max(0, (options.durationSec - outTimeSec) / speed);
      }
      const frame = Number(block.frame);
      if (Number.isFinite(frame)) progress.frame = frame;
      options.onProgress(progress);
    };

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdoutBuffer += chunk;
      let newline = stdoutBuffer.indexOf("\n");
      while (newline >= 0) {
        const line = stdoutBuffer.slice(0, newline).trim();
        stdoutBuffer = stdoutBuffer.slice(newline + 1);
        const eq = line.indexOf("=");
        if (eq > 0) {
          const key = line.slice(0, eq);
          block[key] = line.slice(eq + 1);
          if (key === "progress") {
            emit();
            block = {};
          }
        }
        newline = stdoutBuffer.indexOf("\n");
      }
    });
    child.stderr.setEncoding("utf8");
    let stderrLine = "";
    const emitLines = (text: string, flush: boolean) => {
      if (!options.onStderrLine) return;
      const lines = (stderrLine + text).split(/\r?\n|\r/);
      stderrLine = flush ? "" : (lines.pop() ?? "").slice(-TAIL_BYTES);
      for (const line of lines) if (line.trim()) options.onStderrLine(line.trim());
    };
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-TAIL_BYTES * 2);
      emitLines(chunk, false);
    });

    let spawnError: Error | undefined;
    child.on("error", (error) => {
      spawnError = error;
    });
    child.on("close", (code, signal) => {
      emitLines("", true);
      clearTimeout(stallTimer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (failure) {
        reject(failure);
      } else if (spawnError) {
        reject(new FfmpegError("FFMPEG_FAILED", `ffmpeg could not be started: ${spawnError.message}`));
      } else if (code !== 0) {
        const t = tail(stderr);
        reject(
          new FfmpegError("FFMPEG_FAILED", `ffmpeg exited with ${code ?? signal}: ${lastLines(t, 5)}`, {
            stderrTail: t,
            exitCode: code,
            signal,
          }),
        );
      } else {
        if (options.onProgress)
          options.onProgress({ ratio: 1, outTimeSec: options.durationSec, etaSeconds: 0 });
        resolve({ elapsedMs: Date.now() - started, stderrTail: tail(stderr) });
      }
    });
  });
}

function tail(text: string): string {
  return text.slice(-TAIL_BYTES).trim();
}

function lastLines(text: string, n: number): string {
  return text.split("\n").slice(-n).join(" | ");
}
