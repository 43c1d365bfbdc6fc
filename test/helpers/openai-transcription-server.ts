import http from "node:http";
import type { AddressInfo } from "node:net";
import { type HeardWord, hearWords, wavSeconds } from "./speech-stand-in.ts";

/** One transcription request the stand-in received. */
export interface TranscriptionRequest {
  authorization: string | undefined;
  fields: Record<string, string[]>;
  fileBytes: number;
}

/**
 * How the stand-in answers `verbose_json`, shaped like the servers Cutroom is pointed at:
 * - `openai`: OpenAI's API — Whisper segments with `seek`, `tokens`, `avg_logprob`… and, when
 *   `timestamp_granularities[]` asks, `words` at the top; the language by name (`english`).
 * - `whisper.cpp`: whisper.cpp's server (`/inference` JSON, also served on its OpenAI-compatible
 *   path) — segments without `seek` or `compression_ratio`, each with its own `words` (leading
 *   space, `t_dtw`, `probability`), no top-level `words`, `detected_language*` fields.
 * - `speaches`: faster-whisper servers (speaches, faster-whisper-server) — the language as a
 *   code, `words` at the top and inside every segment.
 * - `plain`: only `text`, `language`, `duration`, segments of `id`, `start`, `end`, `text`, and
 *   top-level `words`, without any OpenAI-only field.
 * - a function: its result for the words heard, as the body of a 200 answer.
 */
export type StandInDialect =
  | "openai"
  | "whisper.cpp"
  | "speaches"
  | "plain"
  | ((words: HeardWord[], duration: number) => unknown);

/** The answer of `dialect` for `words` heard in `duration` seconds of audio. */
function answer(
  dialect: StandInDialect,
  words: HeardWord[],
  duration: number,
  fields: Record<string, string[]>,
): unknown {
  if (typeof dialect === "function") return dialect(words, duration);
  const french = fields.language?.[0] === "fr";
  const text = words.map((w) => w.text).join(" ");
  const wantWords = (fields["timestamp_granularities[]"] ?? []).includes("word");
  const pairs: HeardWord[][] = [];
  for (let i = 0; i < words.length; i += 2) pairs.push(words.slice(i, i + 2));
  const span = (group: HeardWord[], id: number) => ({
    id,
    start: group[0]?.start,
    end: group.at(-1)?.end,
    text: ` ${group.map((w) => w.text).join(" ")}`,
  });
  const wordOf = (w: HeardWord) => ({ word: w.text, start: w.start, end: w.end });
  const whisperFields = { tokens: [1, 2], temperature: 0, avg_logprob: -0.2, no_speech_prob: 0.01 };
  switch (dialect) {
    case "openai":
      return {
        task: "transcribe",
        language: french ? "french" : "english",
        duration,
        text,
        segments: pairs.map((g, id) => ({
          ...span(g, id),
          seek: 0,
          ...whisperFields,
          compression_ratio: 1.1,
        })),
        ...(wantWords ? { words: words.map(wordOf) } : {}),
      };
    case "whisper.cpp": {
      const language = french ? "french" : "english";
      return {
        task: "transcribe",
        language,
        duration,
        text: ` ${text}`,
        segments: pairs.map((g, id) => ({
          ...span(g, id),
          ...whisperFields,
          words: g.map((w) => ({
            word: ` ${w.text}`,
            start: w.start,
            end: w.end,
            t_dtw: -1,
            probability: 0.93,
          })),
        })),
        detected_language: language,
        detected_language_probability: 0.97,
        language_probabilities: { [language]: 0.97 },
      };
    }
    case "speaches": {
      const speachesWord = (w: HeardWord) => ({ ...wordOf(w), probability: 0.9 });
      return {
        task: "transcribe",
        language: french ? "fr" : "en",
        duration,
        text,
        words: wantWords ? words.map(speachesWord) : null,
        segments: pairs.map((g, id) => ({
          ...span(g, id),
          seek: 0,
          ...whisperFields,
          compression_ratio: 1.1,
          words: wantWords ? g.map(speachesWord) : null,
        })),
      };
    }
    case "plain":
      return {
        text,
        language: french ? "fr" : "en",
        duration,
        segments: pairs.map((g, id) => span(g, id)),
        words: words.map(wordOf),
      };
  }
}

/**
 * A local stand-in of an OpenAI-compatible `POST /v1/audio/transcriptions` server on 127.0.0.1
 * and a free port. It "hears" each stretch of sound of the uploaded WAV as a word
 * ({@link hearWords}) and answers `verbose_json` in one of the {@link StandInDialect}s (default
 * OpenAI's: segments of two words); `use` switches the dialect of later requests.
 * `failStatus` makes every request fail with that status.
 */
export async function startTranscriptionServer(opts: { failStatus?: number; dialect?: StandInDialect } = {}) {
  const requests: TranscriptionRequest[] = [];
  let dialect: StandInDialect = opts.dialect ?? "openai";
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method !== "POST" || req.url !== "/v1/audio/transcriptions")
      return json(404, { error: { message: "not found" } });
    const form = await new Request("http://stand-in/", {
      method: "POST",
      headers: { "content-type": String(req.headers["content-type"]) },
      body: Buffer.concat(chunks),
    }).formData();
    const fields: Record<string, string[]> = {};
    let wav = Buffer.alloc(0);
    for (const [k, v] of form.entries()) {
      if (typeof v === "string") fields[k] = [...(fields[k] ?? []), v];
      else wav = Buffer.from(await v.arrayBuffer());
    }
    requests.push({ authorization: req.headers.authorization, fields, fileBytes: wav.length });
    if (opts.failStatus)
      return json(opts.failStatus, { error: { message: "stand-in failure", type: "server_error" } });
    json(200, answer(dialect, hearWords(wav), wavSeconds(wav), fields));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Answers later requests in `next`. */
    use(next: StandInDialect) {
      dialect = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
