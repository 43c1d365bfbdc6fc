import http from "node:http";
import type { AddressInfo } from "node:net";
import { hearWords, wavSeconds } from "./speech-stand-in.ts";

/** One transcription request the stand-in received. */
export interface TranscriptionRequest {
  authorization: string | undefined;
  fields: Record<string, string[]>;
  fileBytes: number;
}

/**
 * A local stand-in of an OpenAI-compatible `POST /v1/audio/transcriptions` server on 127.0.0.1
 * and a free port. It "hears" each stretch of sound of the uploaded WAV as a word
 * ({@link hearWords}) and answers `verbose_json` as OpenAI does: `text`, `language`, `duration`,
 * Whisper `segments` (one per two words) and, when `timestamp_granularities[]` asks, `words`.
 * `failStatus` makes every request fail with that status.
 */
export async function startTranscriptionServer(opts: { failStatus?: number } = {}) {
  const requests: TranscriptionRequest[] = [];
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
    const words = hearWords(wav);
    const segments = [];
    for (let i = 0; i < words.length; i += 2) {
      const group = words.slice(i, i + 2);
      segments.push({
        id: segments.length,
        seek: 0,
        start: group[0]?.start,
        end: group.at(-1)?.end,
        text: ` ${group.map((w) => w.text).join(" ")}`,
        tokens: [1, 2],
        temperature: 0,
        avg_logprob: -0.2,
        compression_ratio: 1.1,
        no_speech_prob: 0.01,
      });
    }
    const wantWords = (fields["timestamp_granularities[]"] ?? []).includes("word");
    json(200, {
      task: "transcribe",
      language: fields.language?.[0] === "fr" ? "french" : "english",
      duration: wavSeconds(wav),
      text: words.map((w) => w.text).join(" "),
      segments,
      ...(wantWords ? { words: words.map((w) => ({ word: w.text, start: w.start, end: w.end })) } : {}),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
