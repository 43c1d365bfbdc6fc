/**
 * Reading the `verbose_json` answer of a Whisper server, in the dialects servers speak: OpenAI's
 * (segments with `seek`, `tokens`, `avg_logprob`…, words at the top), whisper.cpp's server (no
 * `seek` or `compression_ratio`, words inside each segment, the language by name) and
 * faster-whisper servers such as speaches (words at the top and in segments, the language as a
 * code). Only text and timings are read; every other field may be there or not.
 */
import { z } from "zod";
import { attachWords } from "../assemble.ts";
import { TranscriptionError, type TranscriptSegment, type TranscriptWord } from "../types.ts";

const timed = z.object({ start: z.number(), end: z.number() });
const wordSchema = timed.extend({ word: z.string().optional(), text: z.string().optional() });
const segmentSchema = timed.extend({ text: z.string(), words: z.array(z.unknown()).nullish() });
/** Fields of another type than expected count as absent: servers differ even there. */
const answerSchema = z.object({
  text: z.string().nullish().catch(undefined),
  language: z.string().nullish().catch(undefined),
  duration: z.coerce.number<unknown>().positive().nullish().catch(undefined),
  segments: z.array(z.unknown()).nullish().catch(undefined),
  words: z.array(z.unknown()).nullish().catch(undefined),
});

/** What a Whisper server's answer holds, ready for a transcript. */
export interface WhisperTranscript {
  /** ISO 639 code of the language the server names (`english` → `en`), when it names one. */
  language: string | undefined;
  /** Length of the audio as the server measured it, seconds, when it says. */
  duration: number | undefined;
  /** Segments in time order, each with the words whose midpoint falls in it. */
  segments: TranscriptSegment[];
}

/**
 * Reads a `verbose_json` answer: its segments (`start`, `end`, `text`) and its words (`word`,
 * `start`, `end`, at the top or inside the segments), times in seconds. Words are placed in the
 * segments; words alone become segments at sentence ends and pauses. Items without numeric times
 * are skipped. Silence (empty text, no segments) is an empty transcript.
 * @throws TranscriptionError `engine_failed` (not retryable) when the answer is not a JSON object
 *   with `text`, `segments` or `words`, or has text but neither segment nor word times.
 */
export function readWhisperAnswer(body: unknown): WhisperTranscript {
  const answer = answerSchema.safeParse(body);
  const empty = answer.data?.text == null && answer.data?.segments == null && answer.data?.words == null;
  if (!answer.success || empty) {
    throw new TranscriptionError(
      "engine_failed",
      "The transcription server's answer is not a transcription (expected verbose_json with text, segments and words)",
    );
  }
  const { text, language, duration } = answer.data;
  const segments = (answer.data.segments ?? []).flatMap((item) => {
    const s = segmentSchema.safeParse(item);
    return s.success ? [s.data] : [];
  });
  const topWords = wordsOf(answer.data.words ?? []);
  const words = topWords.length > 0 ? topWords : wordsOf(segments.flatMap((s) => s.words ?? []));
  const spoken = text ?? segments.map((s) => s.text).join(" ");
  if (segments.length === 0 && words.length === 0 && spoken.trim() !== "") {
    throw new TranscriptionError(
      "engine_failed",
      "The transcription server answered text without segment or word times (it must answer verbose_json with timestamps)",
    );
  }
  return {
    language: language ? languageCode(language) : undefined,
    duration: duration ?? undefined,
    segments: attachWords(
      segments.map(({ start, end, text }) => ({ start, end, text })),
      words,
    ).filter((s) => s.text),
  };
}

/** The timed words of a list, text trimmed; items without times or text are skipped. */
function wordsOf(items: unknown[]): TranscriptWord[] {
  return items.flatMap((item) => {
    const w = wordSchema.safeParse(item);
    const text = (w.data?.word ?? w.data?.text ?? "").trim();
    return w.success && text ? [{ start: w.data.start, end: w.data.end, text, confidence: null }] : [];
  });
}

/** Whisper's language names that are not the English name of their code. */
const WHISPER_NAMES: Record<string, string> = {
  bengali: "bn",
  burmese: "my",
  cantonese: "yue",
  castilian: "es",
  flemish: "nl",
  haitian: "ht",
  hawaiian: "haw",
  letzeburgesch: "lb",
  mandarin: "zh",
  moldavian: "ro",
  moldovan: "ro",
  myanmar: "my",
  nynorsk: "nn",
  panjabi: "pa",
  pushto: "ps",
  sinhalese: "si",
  tagalog: "tl",
  valencian: "ca",
};

let namesToCodes: Map<string, string> | undefined;

/**
 * A language as its code: a two- or three-letter code as it is, a name (`english`, `French`,
 * `māori`) by its English name in the runtime's locale data or Whisper's own names.
 * @returns the lower-case code, or undefined for a name it does not know.
 */
export function languageCode(language: string): string | undefined {
  const name = language.trim().toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
  if (/^[a-z]{2,3}$/.test(name)) return name;
  namesToCodes ??= englishLanguageNames();
  return WHISPER_NAMES[name] ?? namesToCodes.get(name);
}

/** English name (lower case, without accents) → ISO 639-1 code, for every code the runtime names. */
function englishLanguageNames(): Map<string, string> {
  const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
  const map = new Map<string, string>();
  const letters = "abcdefghijklmnopqrstuvwxyz";
  for (const a of letters) {
    for (const b of letters) {
      // Canonical codes only: `iw`, `in`, `ji`, `jw` are the old names of `he`, `id`, `yi`, `jv`.
      const code = Intl.getCanonicalLocales(a + b)[0];
      const name = code === a + b ? names.of(code) : undefined;
      if (code && name) map.set(name.toLowerCase().normalize("NFD").replace(/\p{M}/gu, ""), code);
    }
  }
  return map;
}
