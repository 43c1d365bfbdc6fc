// A local stand-in of fal.ai's queue API (the protocol @fal-ai/client speaks), for contract
// tests and the generation bench: 127.0.0.1, port 0, real PNG/MP4 bytes.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ffmpeg } from "../fixtures/render/media.ts";
import { hearWords } from "./speech-stand-in.ts";

/** How the stand-in treats one submitted request. */
export type StandInBehaviour =
  /** IN_QUEUE → IN_PROGRESS → COMPLETED on successive polls, then the files. */
  | "normal"
  /** Submit answers 422 with a `content_policy_violation` detail. */
  | "content_rejected"
  /** Submit answers 422 with a plain validation error on `image_size`. */
  | "invalid_input"
  /** Submit answers 500 (every time). */
  | "server_error"
  /** Stays IN_PROGRESS forever (until cancelled). */
  | "never_finishes"
  /** Completes with a result URL on another (private) host, which must not be fetched. */
  | "foreign_result_url";

/** One request the stand-in received. */
export interface StandInRequest {
  id: string;
  model: string;
  input: Record<string, unknown>;
  authorization: string | undefined;
  behaviour: StandInBehaviour;
  polls: number;
  cancelled: boolean;
  submittedAt: number;
  completedAt: number | null;
}

/** A running stand-in. */
export interface FalStandIn {
  /** `http://127.0.0.1:<port>`: set as FAL_QUEUE_URL. */
  url: string;
  /** Every accepted submission, in order. */
  requests: StandInRequest[];
  /** Submissions answered with an error (422/500), counted. */
  refusedSubmits: number;
  /** Status polls before COMPLETED (default 2: one IN_QUEUE, one IN_PROGRESS). */
  pollsBeforeDone: number;
  /** Picks the behaviour of a submission (default: from a `[behaviour]` tag in the prompt). */
  behaviourFor: (input: Record<string, unknown>) => StandInBehaviour;
  /** The bytes served for image and video results. */
  png: Buffer;
  mp4: Buffer;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * fal Whisper's answer with `chunk_level: "word"`: each stretch of sound of the `audio_url` data
 * URI (16 kHz mono WAV) is a word chunk `{ timestamp: [start, end], text }`; every third word
 * ends a sentence.
 */
function whisperResult(input: Record<string, unknown>) {
  const uri = String(input.audio_url ?? "");
  const words = hearWords(Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64"));
  const chunks = words.map((w, i) => ({
    timestamp: [w.start, w.end],
    text: ` ${w.text}${i % 3 === 2 ? "." : ""}`,
  }));
  return {
    text: chunks.map((c) => c.text).join(""),
    chunks,
    inferred_languages: [String(input.language ?? "en")],
  };
}

/** Starts the stand-in; the PNG (96×64) and MP4 (1 s, 160×90, 24 fps) are made with ffmpeg. */
export async function startFalStandIn(): Promise<FalStandIn> {
  const dir = await mkdtemp(path.join(tmpdir(), "fal-stand-in-"));
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=96x64", "-frames:v", "1", path.join(dir, "a.png")]);
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    "testsrc2=s=160x90:r=24:d=1",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    path.join(dir, "a.mp4"),
  ]);
  const png = await readFile(path.join(dir, "a.png"));
  const mp4 = await readFile(path.join(dir, "a.mp4"));
  await rm(dir, { recursive: true, force: true });

  const byId = new Map<string, StandInRequest>();
  const state: FalStandIn = {
    url: "",
    requests: [],
    refusedSubmits: 0,
    pollsBeforeDone: 2,
    behaviourFor: (input) => {
      const m = /\[(\w+)\]/.exec(String(input.prompt ?? ""));
      return (m?.[1] as StandInBehaviour | undefined) ?? "normal";
    },
    png,
    mp4,
    close: async () => {},
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", state.url);
      const fileMatch = /^\/files\/([\w-]+)\.(png|mp4)$/.exec(url.pathname);
      if (req.method === "GET" && fileMatch) {
        res.writeHead(200, { "content-type": fileMatch[2] === "png" ? "image/png" : "video/mp4" });
        res.end(fileMatch[2] === "png" ? png : mp4);
        return;
      }
      const reqMatch = /^\/(.+?)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(url.pathname);
      if (reqMatch) {
        const r = byId.get(reqMatch[2] as string);
        if (!r) return json(res, 404, { detail: "Request not found" });
        if (reqMatch[3] === "/cancel" && req.method === "PUT") {
          r.cancelled = true;
          return json(res, 202, { status: "CANCELLATION_REQUESTED" });
        }
        if (reqMatch[3] === "/status") {
          r.polls += 1;
          const done = !r.cancelled && r.behaviour !== "never_finishes" && r.polls > state.pollsBeforeDone;
          if (done) {
            r.completedAt ??= performance.now();
            return json(res, 200, { status: "COMPLETED", request_id: r.id, logs: null });
          }
          return json(res, 200, {
            status: r.polls <= 1 ? "IN_QUEUE" : "IN_PROGRESS",
            request_id: r.id,
            ...(r.polls <= 1 ? { queue_position: 0 } : {}),
          });
        }
        if (!r.completedAt) return json(res, 400, { detail: "Request is still in progress" });
        if (r.behaviour === "foreign_result_url") {
          return json(res, 200, { images: [{ url: "https://10.0.0.7/out.png", content_type: "image/png" }] });
        }
        if (r.model.includes("whisper")) return json(res, 200, whisperResult(r.input));
        if (r.model.includes("video")) {
          return json(res, 200, {
            video: { url: `${state.url}/files/${r.id}.mp4`, content_type: "video/mp4" },
          });
        }
        const n = Number(r.input.num_images ?? 1);
        return json(res, 200, {
          images: Array.from({ length: n }, (_, i) => ({
            url: `${state.url}/files/${r.id}-${i}.png`,
            content_type: "image/png",
            width: 96,
            height: 64,
          })),
          seed: r.input.seed ?? 42,
        });
      }
      if (req.method === "POST") {
        const model = url.pathname.replace(/^\/+/, "");
        const input = JSON.parse((await body(req)) || "{}") as Record<string, unknown>;
        const behaviour = state.behaviourFor(input);
        if (behaviour === "content_rejected") {
          state.refusedSubmits += 1;
          return json(res, 422, {
            detail: [
              {
                loc: ["body", "prompt"],
                msg: "The prompt was flagged by the content checker",
                type: "content_policy_violation",
              },
            ],
          });
        }
        if (behaviour === "invalid_input") {
          state.refusedSubmits += 1;
          return json(res, 422, {
            detail: [
              { loc: ["body", "image_size"], msg: "Input should be a valid size", type: "value_error" },
            ],
          });
        }
        if (behaviour === "server_error") {
          state.refusedSubmits += 1;
          return json(res, 500, { detail: "Internal server error" });
        }
        const id = randomUUID();
        const r: StandInRequest = {
          id,
          model,
          input,
          authorization: req.headers.authorization,
          behaviour,
          polls: 0,
          cancelled: false,
          submittedAt: performance.now(),
          completedAt: null,
        };
        byId.set(id, r);
        state.requests.push(r);
        const base = `${state.url}/${model.split("/").slice(0, 2).join("/")}/requests/${id}`;
        return json(res, 200, {
          request_id: id,
          status: "IN_QUEUE",
          queue_position: 0,
          response_url: base,
          status_url: `${base}/status`,
          cancel_url: `${base}/cancel`,
        });
      }
      json(res, 404, { detail: "Not found" });
    })().catch((err: unknown) => json(res, 500, { detail: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
