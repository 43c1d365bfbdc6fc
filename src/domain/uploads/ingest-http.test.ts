// The wiring the upload route should use, exercised over real HTTP with @fastify/multipart:
// limits, all-or-nothing, a prompt 413 while the client is still sending, client aborts.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import multipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { filesUnder } from "../../../test/helpers/files.ts";
import { AppError } from "../../errors.ts";
import { LocalDiskStore } from "../../storage/local-disk.ts";
import { ingestParts, MAX_FILES_PER_UPLOAD, type UploadPart } from "./ingest-parts.ts";
import { type Fixtures, makeFixtures } from "./test-fixtures.ts";

// Counts media work (every upload is probed, or a still read in-process, before its poster is
// made) while doing it for real.
const media = vi.hoisted(() => ({ probes: 0 }));
vi.mock("../../media/probe.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../media/probe.ts")>();
  return {
    ...real,
    probeMedia: (...args: Parameters<typeof real.probeMedia>) => {
      media.probes += 1;
      return real.probeMedia(...args);
    },
  };
});
vi.mock("../../media/image.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../media/image.ts")>();
  return {
    ...real,
    readImage: (...args: Parameters<typeof real.readImage>) => {
      media.probes += 1;
      return real.readImage(...args);
    },
  };
});

const MAX_BYTES = 1024 * 1024; // small limit so the test streams a few MB, not 512
let dir: string;
let fx: Fixtures;
let store: LocalDiskStore;
let app: FastifyInstance;
let port: number;

const storedFiles = (): Promise<string[]> => filesUnder(store.dir);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-http-"));
  fx = await makeFixtures(dir);
  store = new LocalDiskStore({
    dir: path.join(dir, "blobs"),
    publicBaseUrl: "http://x",
    secret: "z".repeat(43),
  });

  app = Fastify({ forceCloseConnections: true });
  await app.register(multipart, {
    limits: {
      fileSize: MAX_BYTES + 1, // one byte over: our meter trips first and names the file
      files: MAX_FILES_PER_UPLOAD,
      fields: 10,
      fieldSize: 1024,
      parts: MAX_FILES_PER_UPLOAD + 10,
      headerPairs: 100,
    },
  });
  app.setErrorHandler((err, _request, reply) => {
    const status = err instanceof AppError ? err.status : 500;
    // No "Connection: close": closing with unread input resets the connection and the client
    // loses the answer. Node drains the refused body; the app bounds that (lingering close).
    return reply.code(status).send({
      error: {
        code: err instanceof AppError ? err.code : "internal_error",
        message: (err as Error).message,
      },
    });
  });
  app.post("/uploads", async (request, reply) => {
    const ac = new AbortController();
    request.raw.on("close", () => {
      if (!request.raw.complete) ac.abort(new Error("client went away"));
    });
    const { files, fields } = await ingestParts(request.parts() as AsyncIterable<UploadPart>, {
      store,
      maxBytes: MAX_BYTES,
      signal: ac.signal,
    });
    return reply
      .code(201)
      .send({ fields, data: files.map((f) => ({ id: f.id, type: f.type, name: f.name, size: f.size })) });
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(store.dir, { recursive: true, force: true });
});

async function postForm(
  form: FormData,
): Promise<{ status: number; body: { error?: { message: string } } & Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/uploads`, { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as never };
}

const blobOf = async (file: string) => new Blob([await readFile(file)]);

describe("upload route wiring (@fastify/multipart → ingestParts)", () => {
  it("stores several files and reads fields", async () => {
    const form = new FormData();
    form.append("projectId", "prj_1");
    form.append("file", await blobOf(fx.video), "a.mp4");
    form.append("file", await blobOf(fx.vtt), "b.vtt");
    const { status, body } = await postForm(form);
    expect(status).toBe(201);
    expect(body.fields).toEqual({ projectId: "prj_1" });
    expect((body.data as { type: string }[]).map((f) => f.type)).toEqual(["video", "subtitle"]);
    expect(await storedFiles()).toHaveLength(3);
  });

  it("is all or nothing: a bad third file removes the first two", async () => {
    const form = new FormData();
    form.append("file", await blobOf(fx.video), "a.mp4");
    form.append("file", await blobOf(fx.png), "b.png");
    form.append("file", await blobOf(fx.elfAsMp4), "c.mp4");
    const { status, body } = await postForm(form);
    expect(status).toBe(415);
    expect(body.error?.message).toMatch(/"c\.mp4"/);
    expect(await storedFiles()).toEqual([]);
  });

  it("refuses more than 20 files", async () => {
    const form = new FormData();
    const srt = await blobOf(fx.srt);
    for (let i = 0; i < 21; i++) form.append("file", srt, `s${i}.srt`);
    const { status } = await postForm(form);
    expect(status).toBe(400);
    expect(await storedFiles()).toEqual([]);
  });

  it("refuses 21 media files before probing any of them", async () => {
    const form = new FormData();
    const png = await blobOf(fx.png);
    for (let i = 0; i < MAX_FILES_PER_UPLOAD + 1; i++) form.append("file", png, `p${i}.png`);
    const before = { ...media };
    const { status, body } = await postForm(form);
    expect(status).toBe(400);
    expect(body.error?.message).toMatch(/Too many files: at most 20/);
    expect(media).toEqual(before);
    expect(await storedFiles()).toEqual([]);

    // The same 20 files are probed and kept: the spy does see media work.
    const twenty = new FormData();
    for (let i = 0; i < MAX_FILES_PER_UPLOAD; i++) twenty.append("file", png, `p${i}.png`);
    expect((await postForm(twenty)).status).toBe(201);
    expect(media.probes - before.probes).toBe(MAX_FILES_PER_UPLOAD);
  });

  it("answers 413 naming the file while the client is still sending, keeping nothing", async () => {
    const boundary = "----cutroom";
    const mp4 = await readFile(fx.video);
    const chunk = randomBytes(64 * 1024);
    let sent = 0;
    // Would send 1 GiB; the answer must come long before that (loopback absorbs tens of MB
    // meanwhile); the client stops sending once it has the answer.
    const answer = await new Promise<{
      status: number;
      connection: string | undefined;
      body: string;
      sent: number;
    }>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/uploads",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      let answered = false;
      req.on("response", (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => {
          req.destroy(); // a real client gives up the rest of the body once refused
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            body,
            sent: sentWhenAnswered,
          });
        });
        res.on("error", reject);
      });
      req.on("error", (err) => {
        if (!answered) reject(err);
      });
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n\r\n`);
      req.write(mp4);
      const pump = () => {
        while (!answered && !req.destroyed && sent < 1024 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered && !req.destroyed) req.end();
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatch(/File \\"big\.mp4\\" is larger than the 1 MB limit/);
    expect(answer.sent).toBeLessThan(256 * 1024 * 1024);
    expect(await storedFiles()).toEqual([]);
  });

  it("keeps nothing when the client aborts mid-upload", async () => {
    const boundary = "----cutroom";
    const mp4 = await readFile(fx.video);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/uploads",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      req.on("error", () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\n`);
      req.write(mp4);
      req.write(randomBytes(200_000), () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100),
      );
    });
    // Give the server a moment to notice and clean up.
    for (let i = 0; i < 50 && (await storedFiles()).length > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(await storedFiles()).toEqual([]);
  });
});
