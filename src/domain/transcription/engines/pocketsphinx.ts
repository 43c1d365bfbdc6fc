/**
 * The offline engine: CMU PocketSphinx (Debian's `pocketsphinx` 0.8+5prealpha with the
 * `pocketsphinx-en-us` acoustic model, language model and dictionary), run as a child process
 * over a 16 kHz mono WAV. Continuous-speech decoding with its voice-activity detector cutting
 * utterances; `-time yes` prints each word with its start, end and posterior probability.
 *
 * Accuracy is draft quality (about 35 % word error rate on read speech, see bench/README.md):
 * good enough to find chapters and silences, not to publish captions unedited.
 */
import { availableParallelism } from "node:os";
import { MediaProbeError, runMediaTool } from "../../../media/probe.ts";
import { segmentOf } from "../assemble.ts";
import {
  type TranscribeInput,
  type Transcriber,
  TranscriptionError,
  type TranscriptResult,
  type TranscriptSegment,
  type TranscriptWord,
} from "../types.ts";

/** Where Debian's `pocketsphinx-en-us` installs the US English model. */
export const POCKETSPHINX_EN_US = "/usr/share/pocketsphinx/model/en-us";

/** Fillers and markers the decoder emits that are not words. */
const NON_WORDS = /^(<s>|<\/s>|<sil>|\[.*\]|\+\+.*\+\+)$/;
/** A timed line of `-time yes` output: `word start end posterior`. */
const TIMED_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/;

/**
 * Parses `pocketsphinx_continuous -time yes` output into segments: one per utterance (between
 * `<s>` and `</s>`), its words without fillers, alternate-pronunciation suffixes (`to(2)`)
 * removed. Utterances with no words are dropped. Times are absolute, seconds.
 */
export function parsePocketsphinxOutput(stdout: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: TranscriptWord[] = [];
  const flush = () => {
    const segment = segmentOf(words);
    if (segment) segments.push(segment);
    words = [];
  };
  for (const line of stdout.split("\n")) {
    const m = TIMED_LINE.exec(line.trim());
    if (!m) continue;
    const [, token = "", start, end, posterior] = m;
    if (token === "<s>") flush();
    if (NON_WORDS.test(token)) {
      if (token === "</s>") flush();
      continue;
    }
    words.push({
      start: Number(start),
      end: Number(end),
      text: token.replace(/\(\d+\)$/, ""),
      confidence: Math.min(1, Math.max(0, Number(posterior))),
    });
  }
  flush();
  return segments;
}

/**
 * The PocketSphinx transcriber.
 * @param opts.modelDir - directory of the `en-us` model (default Debian's).
 */
export function createPocketsphinxTranscriber(opts: { modelDir?: string } = {}): Transcriber {
  const dir = opts.modelDir ?? POCKETSPHINX_EN_US;
  return {
    info: { provider: "offline", model: "pocketsphinx-en-us", offline: true },
    quality: "draft",
    languages: ["en"],
    // Chunks only bound the work lost to a cancel and give progress; the decoder has no limit.
    concurrency: availableParallelism(),
    maxChunkSeconds: 120,
    async transcribe(input: TranscribeInput): Promise<TranscriptResult> {
      const args = [
        ...["-infile", input.audioPath, "-time", "yes", "-logfn", "/dev/null"],
        ...["-hmm", `${dir}/en-us`, "-lm", `${dir}/en-us.lm.bin`, "-dict", `${dir}/cmudict-en-us.dict`],
        // At most 4,000 active HMMs per frame (default 30,000): about a third less CPU time with
        // the same words on the LibriVox bench (bench/README.md).
        ...["-maxhmmpf", "4000"],
      ];
      try {
        const { stdout } = await runMediaTool("pocketsphinx_continuous", args, {
          // Decoding runs at a fraction of real time; a generous bound for a loaded machine.
          timeoutMs: 60_000 + input.duration * 5_000,
          signal: input.signal,
        });
        input.progress(1);
        return {
          language: "en",
          duration: input.duration,
          segments: parsePocketsphinxOutput(stdout.toString("utf8")),
        };
      } catch (err) {
        input.signal.throwIfAborted();
        const missing = err instanceof MediaProbeError && /could not be started/.test(err.message);
        throw new TranscriptionError(
          missing ? "engine_unavailable" : "engine_failed",
          missing
            ? "The offline speech recogniser (pocketsphinx_continuous) is not installed on this server"
            : `The offline speech recogniser failed: ${(err as Error).message}`,
          { cause: err, retryable: !missing },
        );
      }
    },
  };
}
