import { runMediaTool } from "./probe.ts";

/**
 * What ffmpeg (at `-loglevel error`) writes when an input's data is damaged or cut short:
 * demuxer complaints (`partial file`, `moov atom not found`, corrupt packets), bitstream
 * parsers (`Invalid NAL unit size`) and decoders (`error while decoding MB 8 7`, concealed
 * errors, `Header missing`). Errors about filters, encoders or options are not damage.
 */
const DAMAGE_PATTERNS: readonly RegExp[] = [
  /partial file/i,
  /moov atom not found/i,
  /invalid nal unit/i,
  /error splitting the input into nal units/i,
  /missing picture in access unit/i,
  /error while decoding/i,
  /corrupt (input )?packet|packet corrupt/i,
  /invalid data found when processing input/i,
  /decode_slice_header error/i,
  /concealing \d+ (dc|ac|mv) errors/i,
  /invalid level prefix/i,
  /header missing/i,
  /truncat(ed|ing) (packet|file|input)/i,
  /end of file reached before|unexpected end of (file|stream)/i,
];

/** True when one line of ffmpeg's stderr reports damaged or truncated input data. */
export function isDamageLine(line: string): boolean {
  return DAMAGE_PATTERNS.some((p) => p.test(line));
}

/**
 * The ffmpeg input index a stderr line names (`Error while decoding stream #1:0`,
 * `[vist#1:0/h264 @ …]`), or `null` when it names none (demuxer and parser lines carry only
 * a context address).
 */
export function inputIndexOf(line: string): number | null {
  const m = /#(\d+):\d+/.exec(line);
  return m ? Number(m[1]) : null;
}

/**
 * Reads one input the way a render read it (same seek, length and file: `inputArgs`) and
 * decodes every stream to nothing, collecting the damage lines ffmpeg reports. Costs one decode
 * of that range (no filtering, no encoding).
 *
 * @param inputArgs - the input's ffmpeg arguments, ending with `-i <file>`.
 * @param opts.timeoutMs - give up after this long (ms); a check that does not finish reports nothing.
 * @returns the damage lines (at most 20), empty when the range decodes cleanly.
 */
export async function decodeDamage(
  inputArgs: readonly string[],
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<string[]> {
  const args = [
    "-hide_banner",
    "-nostdin",
    "-loglevel",
    "error",
    ...inputArgs,
    "-map",
    "0",
    "-f",
    "null",
    "-",
  ];
  const result = await runMediaTool("ffmpeg", args, { timeoutMs: opts.timeoutMs, signal: opts.signal }).then(
    (r) => r.stderr,
    // A source so damaged that ffmpeg gives up is damaged too; the message names the failure.
    (err: unknown) => (err instanceof Error && isDamageLine(err.message) ? err.message : ""),
  );
  return result
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && isDamageLine(l))
    .slice(0, 20);
}
