import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUpload } from "../../src/db/repositories/uploads.ts";
import { type MediaFixtures, makeMediaFixtures } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, tinyCanvas } from "./helpers.ts";

const run = promisify(execFile);

let t: TestApp;
let base: string;
let dir: string;
let fx: MediaFixtures;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cutroom-render-stall-"));
  [fx, t] = await Promise.all([
    makeMediaFixtures(dir),
    // Renders longer than 1 s are split: the second test's.
    startTestApp({ worker: true, env: { RENDER_STALL_TIMEOUT_SEC: "1", RENDER_SEGMENT_SEC: "1" } }),
  ]);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * An account with a video upload whose stored file became a FIFO nobody writes to: like a hung
 * network mount, ffmpeg and ffprobe block opening it and never report progress.
 */
async function stalledUpload() {
  const account = await t.createAccount();
  const api = client(base, account.key);
  const [up] = await api.upload([fx.video]);
  const row = await findUpload(t.database.db, account.userId, up?.id ?? "");
  const stored = t.runtime.store.localPath(row?.storageKey ?? "") ?? "";
  await rm(stored);
  await run("mkfifo", [stored]);
  return { api, up };
}

/**
 * Renders `seconds` of a stalled upload ({@link stalledUpload}); the ended render, every state
 * polled, and the milliseconds from the start to the end.
 */
async function renderStalled(name: string, seconds: number, timeoutMs: number) {
  const { api, up } = await stalledUpload();
  const comp = await api.createComposition({
    name,
    canvas: tinyCanvas(25),
    tracks: [
      { kind: "video", clips: [{ start: 0, duration: seconds, asset: { type: "video", uploadId: up?.id } }] },
    ],
  });
  const started = Date.now();
  const r = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
  const history = await api.pollUntilTerminal(r.id, { timeoutMs });
  return { end: history.at(-1), history, elapsedMs: Date.now() - started };
}

describe("stall timeout through the pipeline", () => {
  it("a source that never delivers a byte ends the render as failed TIMEOUT, not a hang", async () => {
    const { end, history, elapsedMs } = await renderStalled("stalls", 1, 20_000);
    expect(end?.status).toBe("failed");
    expect(end?.error).toMatchObject({ code: "TIMEOUT", retryable: false });
    expect(end?.error?.message).toMatch(/no progress/);
    expect(end?.attempt).toBe(1);
    expect(end?.output).toBeNull();
    expect(history.some((h) => h.status === "rendering")).toBe(true);
    // Stall limit 1 s + SIGTERM/SIGKILL grace 1 s + polling: well under 10 s.
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it("a split render whose source never delivers a byte fails TIMEOUT within the stall limit too", async () => {
    // Placing a split render's boundaries reads its sources' keyframes: that read stops at the
    // stall limit as well (it waited for ffprobe's own 30 s before).
    const { end, elapsedMs } = await renderStalled("stalls split", 2, 40_000);
    expect(end?.status).toBe("failed");
    expect(end?.error).toMatchObject({ code: "TIMEOUT", retryable: false });
    expect(end?.segments).not.toBeNull();
    expect(end?.output).toBeNull();
    // The keyframe read's 1 s, the part's stall limit 1 s + grace 1 s, polling: well under 30 s.
    expect(elapsedMs).toBeLessThan(20_000);
  });
});
