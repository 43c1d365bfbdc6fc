import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** util-linux `setpriv`, when this is Linux and it is installed. */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find(
  (p) => process.platform === "linux" && existsSync(p),
);

/** A command line ready for `spawn(command, args)`. */
export interface ToolLaunch {
  command: string;
  args: string[];
}

/**
 * How a media tool (ffmpeg, ffprobe, pocketsphinx_continuous) is launched so that it dies with
 * the process that started it: on Linux through `setpriv --pdeathsig SIGKILL --` (which execs
 * the tool: one process), so a worker that is killed (OOM, SIGKILL, crash) leaves no encoder or
 * recogniser working on as an orphan while another worker retries its job. The tool itself
 * where setpriv is missing.
 * @param tool - a command on PATH or an absolute path.
 */
export function orphanSafeLaunch(tool: string, args: readonly string[]): ToolLaunch {
  return SETPRIV
    ? { command: SETPRIV, args: ["--pdeathsig", "SIGKILL", "--", tool, ...args] }
    : { command: tool, args: [...args] };
}

/**
 * Whether a launch made by {@link orphanSafeLaunch} failed because the tool could not be
 * executed (setpriv's exit 127 with "failed to execute": missing or not executable), which
 * spawn reports as an `error` event when the tool is launched directly.
 * @param stderr - what the process wrote to stderr.
 */
export function toolNotExecuted(code: number | null, stderr: string): boolean {
  return code === 127 && /setpriv: failed to execute/.test(stderr);
}

/**
 * Starts a media tool launched by {@link orphanSafeLaunch} (it dies with this process). Code
 * outside `src/media/` starts its child processes here, not with `node:child_process` itself.
 * @param tool - a command on PATH or an absolute path.
 * @param options - `spawn`'s options (`stdio`, `cwd`, ...).
 * @returns the child process; a tool that cannot be started is reported as `spawn` does (an
 *   `error` event, or exit 127 that {@link toolNotExecuted} recognises).
 */
export function spawnTool(tool: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const launch = orphanSafeLaunch(tool, args);
  return spawn(launch.command, launch.args, options);
}
