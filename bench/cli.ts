/** What the benchmarks' command lines and logs share. */
import { loadavg } from "node:os";

/** The number after `name` on this process's command line (`--seconds 60`), else `fallback`. */
export function numberFlag(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

/** The 1, 5 and 15 minute load averages, as `"2.1 1.8 1.5"`. */
export function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
}
