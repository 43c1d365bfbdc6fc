// The real API process (`node src/main/api.ts`, embedded database) with the fal queue played by
// a hostile peer that answers HTTP/1.0 style — no length, `Connection: close`, large bodies —
// the shape that used to kill the process after a generation succeeded. The generation must
// succeed, a broken vendor must fail a generation with a sentence, and the process must stay up.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg } from "../fixtures/render/media.ts";
import { falQueueAnswers, type HostilePeer, startHostilePeer } from "../helpers/hostile-peer.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === "object" && address ? address.port : 0;
}

/** Polls `check` every 100 ms until it returns a value, up to `ms`. */
async function until<T>(check: () => Promise<T | null>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the API process with an HTTP/1.0 fal queue", () => {
  let peer: HostilePeer;
  let png: Buffer;
  let dir: string;
  let child: ChildProcess;
  let output = "";
  let exited: number | string | null = null;
  let base: string;
  let key: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "cutroom-api-peer-"));
    // Noise does not compress: a PNG of a few megabytes, far over any stream buffer.
    await ffmpeg(
      ["-f", "lavfi", "-i", "nullsrc=s=1024x1024,geq=random(1)*255:128:128", "-frames:v", "1", "big.png"],
      dir,
    );
    png = await readFile(path.join(dir, "big.png"));
    peer = await startHostilePeer(
      falQueueAnswers({ status: 200, headers: { "content-type": "image/png" }, body: png }),
      "http10-large-body",
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ["src/main/api.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        DATA_DIR: path.join(dir, "data"),
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        FAL_KEY: "fal-child-key-0a1b2c3d",
        FAL_QUEUE_URL: peer.url,
        IMAGE_WAIT_SEC: "60",
        OUTBOUND_HEADERS_TIMEOUT_MS: "2000",
        OUTBOUND_BODY_TIMEOUT_MS: "2000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (c: Buffer) => (output += String(c)));
    child.stderr?.on("data", (c: Buffer) => (output += String(c)));
    child.once("exit", (code, signal) => (exited = code ?? signal));
    key = await until(async () => {
      if (exited !== null) throw new Error(`the API exited: ${output}`);
      return /shown only this once:\s+(\S+)/.exec(output)?.[1] ?? null;
    }, 60_000);
    await until(async () => ((await fetch(`${base}/api/v1/health`)).ok ? true : null), 60_000);
  }, 120_000);

  afterAll(async () => {
    if (child && exited === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    await peer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const generate = async (prompt: string) => {
    const res = await fetch(`${base}/api/v1/generate/image`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("generates an image, and stays up after the peer closed every connection", async () => {
    const { status, body } = await generate("a kite");
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ status: "succeeded", model: { provider: "fal" } });
    expect(body.outputs).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await fetch(`${base}/api/v1/health`)).status).toBe(200);
    expect(exited, output).toBeNull();
  }, 90_000);

  it("fails a generation with a sentence when the result download is cut off, and stays up", async () => {
    peer.mode = "close-mid-body";
    peer.mangles = (req) => req.path.startsWith("/files/");
    const { body } = await generate("another kite");
    const id = body.id as string;
    const settled = await until(async () => {
      const res = await fetch(`${base}/api/v1/generations/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const g = (await res.json()) as { status: string; error: { code: string; message: string } | null };
      return g.status === "failed" ? g : null;
    }, 60_000);
    expect(settled.error?.code).toBe("vendor_error");
    expect(settled.error?.message).toMatch(
      /closed the connection before the response was complete|does not match its Content-Length/,
    );
    expect((await fetch(`${base}/api/v1/health`)).status).toBe(200);
    expect(exited, output).toBeNull();
  }, 90_000);
});
