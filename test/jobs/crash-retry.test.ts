// A worker SIGKILLed in the middle of a generation, a transcription (the offline provider and
// engine, so nothing leaves this machine) or an upload's preview proxy: the other worker process takes the job over after
// the missed heartbeats and it succeeds on attempt 2, with nothing of attempt 1 left behind —
// no extra rows, no stored files without a row, no scratch directories, no orphan processes.
// (A worker killed is replaced by a fresh process, so each test starts with two.)
// The render's own crash test is test/renders/crash-retry.test.ts; both use one rig.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generations, transcriptions, uploads } from "../../src/db/schema/index.ts";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { type GenerationJson, post, uploadFile, waitTerminal } from "../generation/helpers.ts";
import { bearer } from "../helpers/app.ts";
import { filesUnder } from "../helpers/files.ts";
import {
  type CrashRig,
  canRunCrashTests,
  startCrashRig,
  type WorkerProcess,
} from "../helpers/worker-crash.ts";
import {
  type TranscriptionJson,
  talkingHead,
  UTTERANCES,
  waitTranscribed,
} from "../transcription/helpers.ts";

const TERMINAL = ["succeeded", "failed", "cancelled"];

describe.skipIf(!canRunCrashTests)(
  "crash-retry of generations and transcriptions (PostgreSQL only: set TEST_DATABASE_URL)",
  () => {
    let rig: CrashRig;
    let tmp: { dir: string; cleanup: () => Promise<void> };
    let key = "";

    beforeAll(async () => {
      tmp = await tempDir("cutroom-row-crash-");
      rig = await startCrashRig();
      ({ key } = await rig.t.createAccount({ plan: "admin" }));
    }, 60_000);

    afterAll(async () => {
      await rig?.close();
      await tmp?.cleanup();
    });

    /** Reads a resource through the API; `underWay` for the kill: the resource while it runs. */
    const runningAt = (url: string) => async () => {
      const res = await rig.t.app.inject({ url, headers: bearer(key) });
      const body = res.json() as { status: string; progress: number | null };
      if (TERMINAL.includes(body.status)) {
        throw new Error(`${url} ended (${body.status}) before a worker could be killed mid-job`);
      }
      return body.status === "running" && (body.progress ?? 0) > 0 ? body : null;
    };

    /** Every upload folder in the store has its row and every row its folder (no half-written files). */
    const expectStoreMatchesRows = async () => {
      const folders = new Set(
        (await filesUnder(path.join(rig.t.config.dataDir, "blobs", "uploads"))).map(
          (f) => f.split(path.sep)[0],
        ),
      );
      const rows = await rig.t.database.db.select({ id: uploads.id }).from(uploads);
      expect([...folders].sort()).toEqual(rows.map((r) => r.id).sort());
    };

    /**
     * The job succeeded on attempt 2 in a worker that was not killed, and nothing of attempt 1 is
     * left: no upload without its stored file or file without its row, no scratch directory.
     */
    const expectTakenOver = async (
      kind: "generation" | "transcription",
      job: { id: string; status: string; error: unknown; progress: number | null },
      attempt: number | undefined,
      survivors: WorkerProcess[],
    ) => {
      expect(job.status, JSON.stringify(job.error)).toBe("succeeded");
      expect(job.error).toBeNull();
      expect(job.progress).toBe(1);
      expect(attempt).toBe(2);
      expect(survivors.map((w) => w.output.join("")).join("")).toMatch(
        new RegExp(`"outcome":"succeeded"[^\n]*${kind} attempt ended`),
      );
      await expectStoreMatchesRows();
      expect(await rig.leftoverWorkDirs(job.id)).toEqual([]);
      expect(await rig.healthy()).toBe(true);
    };

    it("a generation: the worker killed while it renders, the other renders it again and stores one output", async () => {
      const stillFile = path.join(tmp.dir, "still.png");
      await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720", "-frames:v", "1", stillFile]);
      const still = await uploadFile(rig.t, key, await readFile(stillFile), "still.png");
      // 1080p, 8 s: 192 frames, seconds of work for the offline Ken Burns renderer.
      const res = await post(rig.t, key, "/api/v1/generate/video", {
        prompt: "slow push-in",
        imageUrl: still.id,
        resolution: "1080p",
        duration: "8s",
      });
      expect(res.statusCode, res.body).toBe(202);
      const id = (res.json() as GenerationJson).id;

      const { survivors } = await rig.killWorkerMidJob(runningAt(`/api/v1/generations/${id}`), ["ffmpeg"]);
      const g = await waitTerminal(rig.t, key, id);
      const [row] = await rig.t.database.db.select().from(generations).where(eq(generations.id, id));
      await expectTakenOver("generation", g, row?.attempt, survivors);
      // One output, whole: 192 frames of 1920×1080.
      expect(g.outputs).toHaveLength(1);
      expect(g.outputs[0]?.media).toMatchObject({ width: 1920, height: 1080 });
      expect(Math.abs((g.outputs[0]?.media?.duration ?? 0) - 8)).toBeLessThanOrEqual(1 / 24);
      const outputRows = await rig.t.database.db.select().from(uploads).where(eq(uploads.generationId, id));
      expect(outputRows.map((u) => u.id)).toEqual([g.outputs[0]?.id]);
      // The offline request (kept across attempts so the retry resumes it) is released.
      expect(await filesUnder(path.join(rig.t.config.workDir, "offline-generations"))).toEqual([]);
    }, 120_000);

    it("a transcription: the worker killed while it decodes, the other transcribes it again", async () => {
      const file = await talkingHead(tmp.dir, ["0870", "0880"], 1.5);
      const video = await uploadFile(rig.t, key, await readFile(file), "talk.mp4");
      const res = await post(rig.t, key, "/api/v1/transcriptions", { uploadId: video.id });
      expect(res.statusCode, res.body).toBe(202);
      const id = (res.json() as TranscriptionJson).id;

      const { survivors } = await rig.killWorkerMidJob(runningAt(`/api/v1/transcriptions/${id}`), [
        "pocketsphinx_continuous",
      ]);
      const done = await waitTranscribed(rig.t, key, id);
      const [row] = await rig.t.database.db.select().from(transcriptions).where(eq(transcriptions.id, id));
      await expectTakenOver("transcription", done, row?.attempt, survivors);
      // One whole transcript, each segment once, in order.
      const all = done.segments.flatMap((s) => s.words);
      const heard = new Set(all.map((w) => w.text));
      const expected = `${UTTERANCES["0870"]} ${UTTERANCES["0880"]}`.split(" ");
      expect(expected.filter((w) => heard.has(w)).length / expected.length).toBeGreaterThan(0.5);
      let last = 0;
      for (const w of all) {
        expect(w.start).toBeGreaterThanOrEqual(last - 1e-9);
        last = w.end;
      }
      expect(done.transcript.length).toBe(done.segments.length);
    }, 120_000);
    it("a preview proxy: the worker killed while it encodes, the other makes the proxy once", async () => {
      // 1080p, 30 s with a long GOP: seconds of encoding for the proxy build.
      const file = path.join(tmp.dir, "long.mp4");
      await ffmpeg([
        ...["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=30"],
        ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-pix_fmt", "yuv420p", file],
      ]);
      const video = await uploadFile(rig.t, key, await readFile(file), "long.mp4");
      const url = `/api/v1/uploads/${video.id}`;
      const read = async () =>
        (await rig.t.app.inject({ url, headers: bearer(key) })).json() as { previewProxy: string };
      expect((await read()).previewProxy).toBe("pending");

      const { survivors } = await rig.killWorkerMidJob(async () => {
        const u = await read();
        if (u.previewProxy !== "pending")
          throw new Error(`the proxy ended (${u.previewProxy}) before a kill`);
        return u;
      }, ["ffmpeg"]);
      // The retry (after the missed heartbeats) makes it in a worker that was not killed.
      let state = "pending";
      for (let i = 0; i < 900 && state === "pending"; i++) {
        state = (await read()).previewProxy;
        if (state === "pending") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(state).toBe("ready");
      expect(survivors.map((w) => w.output.join("")).join("")).toMatch(/preview proxy ready/);
      // One proxy beside the original, every stored folder with its row.
      const stored = await filesUnder(path.join(rig.t.config.dataDir, "blobs", "uploads", video.id));
      expect(stored.filter((f) => f.endsWith("proxy.mp4"))).toHaveLength(1);
      await expectStoreMatchesRows();
      // A killed build's `prx_…` scratch directory is left to the hourly sweep (the proxy job has
      // no fenced attempt to remove it at once); the other tests' uploads also build proxies on
      // these workers, so the directories here are not this upload's alone and are not counted.
      expect(await rig.healthy()).toBe(true);
    }, 150_000);
  },
);
