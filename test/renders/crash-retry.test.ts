import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { probe } from "../fixtures/render/media.ts";
import { frameMd5 } from "../fixtures/render/seams.ts";
import { type CrashRig, canRunCrashTests, startCrashRig } from "../helpers/worker-crash.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

/**
 * Half the composition's length (seconds). A 320×180 colour render encodes at ~60× real time on
 * an idle 2-core machine, so 10 minutes keep ffmpeg busy for ~10 s: a window the poll below
 * cannot miss even when other test files load the machine (2 minutes, ~2 s, once did).
 */
const HALF = 300;
const TERMINAL = ["succeeded", "failed", "cancelled"];

/** `2 * HALF` seconds of two colours joined by a wipe, under a text. */
const CRASH_TIMELINE = {
  name: "crash",
  canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 0, duration: HALF, asset: { type: "color", color: "#204080" } },
        {
          start: HALF,
          duration: HALF,
          asset: { type: "color", color: "#802040" },
          transition: { type: "wipeleft", duration: 1 },
        },
      ],
    },
    {
      kind: "video",
      clips: [
        {
          start: 0,
          duration: 2 * HALF,
          asset: { type: "text", text: "crash test", style: { family: "DejaVu Sans", size: 30 } },
        },
      ],
    },
  ],
};

describe.skipIf(!canRunCrashTests)(
  "crash-retry (PostgreSQL only: two worker processes cannot share an embedded PGlite; set TEST_DATABASE_URL)",
  () => {
    let rig: CrashRig | undefined;
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "cutroom-crash-"));
    });

    afterEach(async () => {
      await rig?.close();
      rig = undefined;
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("a worker SIGKILLed mid-render: another worker process takes it over and it succeeds", async () => {
      // Rendered in one piece: the retry is of the whole render.
      rig = await startCrashRig({ RENDER_SEGMENT_SEC: "0" });
      const api = client(rig.base, (await rig.t.createAccount()).key);
      const comp = await api.createComposition(CRASH_TIMELINE);
      const r = await api.startRender({ compositionId: comp.id, output: { quality: "standard" } });

      // Wait until one worker's ffmpeg is encoding, then SIGKILL that worker (only the Node
      // process: its ffmpeg dies with it by the parent-death signal).
      const { survivors, running, killedAt } = await rig.killWorkerMidJob(async () => {
        const got = (await api.getRender(r.id)).body as RenderBody;
        if (TERMINAL.includes(got.status)) {
          throw new Error(`the render ended (${got.status}) before a worker could be killed mid-render`);
        }
        return got.status === "rendering" && got.progress.ratio >= 0.1 ? got : null;
      }, ["ffmpeg"]);
      expect(running.attempt).toBe(1);

      const history: RenderBody[] = [];
      let takenOverInMs = 0;
      const end = (
        await api.pollUntilTerminal(r.id, {
          timeoutMs: 120_000,
          onPoll: (b) => {
            history.push(b);
            if (b.attempt === 2 && !takenOverInMs) takenOverInMs = Date.now() - killedAt;
          },
        })
      ).at(-1);
      const recoveredInMs = Date.now() - killedAt;
      // Heartbeat timeout (10 s) + pg-boss monitor interval (5 s) + retry delay (2 s) + polling.
      expect(takenOverInMs).toBeGreaterThan(0);
      expect(takenOverInMs).toBeLessThan(25_000);
      expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
      expect(end?.attempt).toBe(2);
      expect(end?.error).toBeNull();
      // Progress never went backwards across the two attempts; statuses only moved forward within one.
      let ratio = 0;
      for (const h of history) {
        expect(h.progress.ratio).toBeGreaterThanOrEqual(ratio);
        ratio = h.progress.ratio;
        expect(["rendering", "preparing", "finalizing", "succeeded"]).toContain(h.status);
      }
      expect(history.some((h) => h.attempt === 2)).toBe(true);
      expect(survivors.map((w) => w.output.join("")).join("")).toContain('"outcome":"succeeded"');
      // The killed attempt's scratch directory went when attempt 2 started; attempt 2 removed its own.
      expect(await rig.leftoverWorkDirs(r.id)).toEqual([]);
      expect(await rig.healthy()).toBe(true);

      const file = path.join(dir, "out.mp4");
      const got = await download(onServer(rig.base, end?.output?.url ?? ""), file);
      expect(got.sha256).toBe(end?.output?.sha256);
      const p = await probe(file);
      expect(Math.abs(p.duration - 2 * HALF)).toBeLessThanOrEqual(0.05);
      process.stdout.write(
        `crash-retry: attempt 2 started ${takenOverInMs} ms and finished ${recoveredInMs} ms after the kill\n`,
      );
    }, 180_000);

    it("a worker SIGKILLed mid-segment of a split render costs only that segment", async () => {
      // 600 s in segments of 200 s: three video segments (each several seconds of encoding)
      // and the audio, two workers taking one part at a time.
      rig = await startCrashRig({ RENDER_SEGMENT_SEC: "200" });
      const api = client(rig.base, (await rig.t.createAccount()).key);
      const comp = await api.createComposition(CRASH_TIMELINE);
      const r = await api.startRender({ compositionId: comp.id, output: { quality: "standard" } });

      // Wait until a worker's ffmpeg is encoding a segment, SIGKILL that worker, and tell which
      // part it was from the killed ffmpeg's work directory (`rsg_…-a1-…`).
      const { childDirs } = await rig.killWorkerMidJob(async () => {
        const got = (await api.getRender(r.id)).body as RenderBody;
        if (TERMINAL.includes(got.status)) throw new Error(`the render ended (${got.status}) too soon`);
        return got.status === "rendering" && got.progress.ratio >= 0.15 ? got : null;
      }, ["ffmpeg"]);
      const partId = childDirs.map((d) => /^(rsg_[0-9A-Z]+)-a1-/.exec(path.basename(d))?.[1]).find(Boolean);
      expect(partId, `killed ffmpeg ran in ${childDirs.join(", ")}`).toBeDefined();

      const end = (await api.pollUntilTerminal(r.id, { timeoutMs: 150_000 })).at(-1);
      expect(end?.status, JSON.stringify(end?.error)).toBe("succeeded");
      expect(end?.segments).toEqual({ total: 3, done: 3 });
      // Only the killed part ran twice; every other part, and the render's own job, once
      // (attempt 2 of the render is its join).
      const parts = await listRenderParts(rig.t.database.db, r.id);
      expect(parts).toHaveLength(4);
      expect(parts.map((p) => [p.id, p.status, p.attempt])).toEqual(
        parts.map((p) => [p.id, "succeeded", p.id === partId ? 2 : 1]),
      );
      expect(end?.attempt).toBe(2);
      // The killed attempt's work directory went with its retry; nothing of the render is left.
      const left = (await readdir(rig.t.config.workDir).catch(() => [] as string[])).filter(
        (name) => name.startsWith(`${r.id}-`) || parts.some((p) => name.startsWith(`${p.id}-`)),
      );
      expect(left).toEqual([]);
      expect(await rig.healthy()).toBe(true);

      const file = path.join(dir, "split-out.mp4");
      const got = await download(onServer(rig.base, end?.output?.url ?? ""), file);
      expect(got.sha256).toBe(end?.output?.sha256);
      const p = await probe(file, true);
      expect(p.video?.frames).toBe(2 * HALF * 25);
      expect(Math.abs(p.duration - 2 * HALF)).toBeLessThanOrEqual(0.05);

      // The killed part left no cache entry: the same render again copies the four parts the
      // attempts that ended kept, and they join into the same frames.
      const again = await api.startRender({ compositionId: comp.id, output: { quality: "standard" } });
      const second = (await api.pollUntilTerminal(again.id, { timeoutMs: 150_000 })).at(-1);
      expect(second?.status, JSON.stringify(second?.error)).toBe("succeeded");
      expect(second?.reuse).toEqual({ segments: 4, reused: 4, secondsSaved: 2 * HALF });
      const copy = path.join(dir, "split-again.mp4");
      await download(onServer(rig.base, second?.output?.url ?? ""), copy);
      expect((await probe(copy, true)).video?.frames).toBe(2 * HALF * 25);
      expect(await frameMd5(copy)).toEqual(await frameMd5(file));
    }, 300_000);
  },
);
