import type { PlanInput } from "./plan.ts";

/**
 * Where a failed render's ffmpeg run went wrong, as its error output tells:
 * - `input`: reading one clip's source (`decoding` when its data could not be decoded);
 * - `filter`: a filter working for one clip (a named instance `xfade@<tag>`), by filter name;
 * - `missing-stream`: the graph asks an input for a picture or sound it does not have (ffmpeg
 *   does not say which input, so the caller checks them; a picture when the message's start,
 *   which says which, was cut off);
 * - `global`: nothing points at a clip; `cause` says what went wrong in plain words.
 */
export type FfmpegFault =
  | { kind: "input"; clipId: string; inputIndex: number; decoding: boolean }
  | { kind: "filter"; clipId: string; filter: string }
  | { kind: "missing-stream"; stream: "video" | "audio" }
  | { kind: "global"; cause: string; known: boolean };

/** What {@link readFfmpegFault} needs of the plan that ran. */
export interface FaultContext {
  /** The plan's media inputs (input index → clip and file). */
  inputs: readonly Pick<PlanInput, "index" | "clipId" | "path">[];
  /** Filter instance tag → clip id (`RenderPlan.clipTags`). */
  clipTags: Readonly<Record<string, string>>;
}

/** How ffmpeg ended: its exit code, or the signal that killed it. */
export interface FfmpegExit {
  exitCode?: number | null;
  signal?: string | null;
}

/** Lines of a decoder that could not decode an input's data (ffmpeg 5 and 7 wordings). */
const DECODING = [
  /Error while decoding stream #(\d+):\d+/,
  /Cannot determine format of input stream (\d+):\d+/,
  /^\[(?:vist|aist|dec)#?(\d+):\d+\/[^\]]*\] .*(?:decod|invalid data)/i,
];
/** Lines that name an input by index without saying its data is bad. */
const INPUT_INDEX = [
  /stream #(\d+):\d+/,
  /input stream (\d+):\d+/,
  /^\[(?:in|vist|aist)#(\d+)[:/]/,
  /Input #(\d+)/,
];
/** `[name@tag @ 0x…]`: the prefix of a named filter instance's messages. */
const NAMED_FILTER = /\[([A-Za-z0-9_]+)@([^\s\]]+) @ 0x[0-9a-f]+\]/;
/** How many of {@link GLOBAL_CAUSES} are about the machine's resources. */
const RESOURCE_CAUSES = 3;
/** Spans lines (the message quotes the whole graph); its start may be cut off the tail. */
const MISSING_STREAM = /(?:Stream specifier ':([va])' in filtergraph description[\s\S]*)?matches no streams/;

/**
 * Causes that concern the whole render, not a clip, with a plain-language description a user
 * (or operator) can act on. The first {@link RESOURCE_CAUSES} (the machine's resources) win
 * over anything a clip reported; the others only apply when nothing points at a clip.
 */
const GLOBAL_CAUSES: readonly [RegExp, string][] = [
  [/could not be started|failed to execute/i, "the encoder could not be started on the render machine"],
  [/No space left on device/i, "the render machine ran out of disk space while writing the output"],
  [
    /Cannot allocate memory|out of memory/i,
    "the render machine ran out of memory; render a smaller size or a shorter range",
  ],
  [/Permission denied/i, "the encoder was not allowed to write its working files on the render machine"],
  [
    /Error (?:initializing output stream|while opening encoder)|Could not open encoder|\[(?:libx264|libvpx(?:-vp9)?|libopus|libmp3lame) @ 0x/i,
    "the encoder could not be set up for this output format and size",
  ],
  [
    /Error writing trailer|av_interleaved_write_frame|Error muxing|Could not write header/i,
    "writing the output file failed",
  ],
];

/**
 * Reads ffmpeg's error output of a failed render and says where it went wrong: a clip whose
 * source could not be read or decoded (input lines such as `Error while decoding stream #3:0`,
 * mapped to the clip through `inputs`; or a line naming the input's file), a clip whose filter
 * failed (`[xfade@m5 @ 0x…]`, mapped through `clipTags`), a picture or sound missing from an
 * input, or a cause of the whole render (killed by a signal, disk full, out of memory, encoder
 * or output errors). The first line that points at a clip decides: the errors after it are its
 * consequences (a filter fails on what a broken decoder gave it; the input that fed a failed
 * filter is reported after it).
 *
 * @param stderr - ffmpeg's last error lines (`FfmpegError.stderrTail`); read, never quoted.
 * @param exit - how ffmpeg ended (a signal is a cause of the whole render).
 */
export function readFfmpegFault(stderr: string, ctx: FaultContext, exit: FfmpegExit = {}): FfmpegFault {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim());
  const inputAt = (index: number) => ctx.inputs.find((i) => i.index === index);
  const inputOf = (line: string, patterns: readonly RegExp[]) => {
    for (const p of patterns) {
      const m = p.exec(line);
      const input = m ? inputAt(Number(m[1])) : undefined;
      if (input) return input;
    }
    return undefined;
  };
  if (exit.signal) {
    return {
      kind: "global",
      known: true,
      cause:
        exit.signal === "SIGKILL"
          ? "the encoder was killed by the system (SIGKILL), which usually means the render machine ran out of memory; render a smaller size or a shorter range, or retry when it is less busy"
          : `the encoder was stopped by signal ${exit.signal}`,
    };
  }
  // Running out of the machine's resources ends the render whatever else was reported.
  for (const [pattern, cause] of GLOBAL_CAUSES.slice(0, RESOURCE_CAUSES)) {
    if (lines.some((l) => pattern.test(l))) return { kind: "global", known: true, cause };
  }
  // The first line that points somewhere is the cause; what follows it is its consequence.
  for (const line of lines) {
    const decoding = inputOf(line, DECODING);
    if (decoding) {
      return { kind: "input", clipId: decoding.clipId, inputIndex: decoding.index, decoding: true };
    }
    const named = NAMED_FILTER.exec(line);
    const clipId = named ? ctx.clipTags[named[2] as string] : undefined;
    if (named && clipId !== undefined) return { kind: "filter", clipId, filter: named[1] as string };
    const mentioned = inputOf(line, INPUT_INDEX) ?? ctx.inputs.find((i) => line.includes(i.path));
    if (mentioned) {
      return { kind: "input", clipId: mentioned.clipId, inputIndex: mentioned.index, decoding: false };
    }
  }
  const missing = MISSING_STREAM.exec(stderr);
  if (missing) {
    return { kind: "missing-stream", stream: missing[1] === "a" ? "audio" : "video" };
  }
  for (const [pattern, cause] of GLOBAL_CAUSES) {
    if (lines.some((l) => pattern.test(l))) return { kind: "global", known: true, cause };
  }
  return {
    kind: "global",
    known: false,
    cause:
      "the encoder stopped with an error that points at no clip; the server log has its details under this render's id",
  };
}
