import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** The first of `paths` that exists, on Linux. */
function linuxTool(...paths: string[]): string | undefined {
  return paths.find((p) => process.platform === "linux" && existsSync(p));
}

/** util-linux `setpriv`, when this is Linux and it is installed. */
const SETPRIV = linuxTool("/usr/bin/setpriv", "/bin/setpriv");
/** coreutils `nice` and util-linux `ionice`, when installed. */
const NICE = linuxTool("/usr/bin/nice", "/bin/nice");
const IONICE = linuxTool("/usr/bin/ionice", "/bin/ionice");

/** The niceness media tools start with unless {@link setMediaNiceness} says otherwise. */
export const DEFAULT_MEDIA_NICENESS = 10;
let niceness = DEFAULT_MEDIA_NICENESS;

/**
 * Sets the CPU niceness (0–19) of the media tools this process launches from now on (the
 * MEDIA_NICE setting). Above 0 they also get the lowest best-effort I/O priority, so a render
 * leaves the cores and the disk to the API first; 0 runs them at this process's priority.
 * @throws RangeError outside 0–19.
 */
export function setMediaNiceness(value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 19)
    throw new RangeError(`media niceness must be an integer from 0 to 19, not ${value}`);
  niceness = value;
}

/** A command line ready for `spawn(command, args)`. */
export interface ToolLaunch {
  command: string;
  args: string[];
}

/**
 * How a media tool (ffmpeg, ffprobe, pocketsphinx_continuous) is launched:
 * - so that it dies with the process that started it: on Linux through
 *   `setpriv --pdeathsig SIGKILL --`, so a worker that is killed (OOM, SIGKILL, crash) leaves
 *   no encoder or recogniser working on as an orphan while another worker retries its job;
 * - at a lower priority than the API beside it (see {@link setMediaNiceness}): through
 *   `nice -n <niceness>` and `ionice -c 2 -n 7 -t` (best effort, lowest level; ignored where the
 *   I/O scheduler has no priorities) when those are installed.
 * Each wrapper execs the next, so the launched process (its pid) is the tool itself. The tool
 * alone where none of them is installed.
 * @param tool - a command on PATH or an absolute path.
 */
export function orphanSafeLaunch(tool: string, args: readonly string[]): ToolLaunch {
  const chain: string[] = [];
  if (SETPRIV) chain.push(SETPRIV, "--pdeathsig", "SIGKILL", "--");
  if (niceness > 0 && NICE) chain.push(NICE, "-n", String(niceness));
  if (niceness > 0 && IONICE) chain.push(IONICE, "-c", "2", "-n", "7", "-t");
  const [command, ...rest] = [...chain, tool, ...args] as [string, ...string[]];
  return { command, args: rest };
}

/**
 * Whether a launch made by {@link orphanSafeLaunch} failed because the tool could not be
 * executed (exit 127 from setpriv, nice or ionice saying so: missing or not executable), which
 * spawn reports as an `error` event when the tool is launched directly.
 * @param stderr - what the process wrote to stderr.
 */
export function toolNotExecuted(code: number | null, stderr: string): boolean {
  return code === 127 && /^(?:(?:setpriv|ionice): failed to execute|nice: )/m.test(stderr);
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
