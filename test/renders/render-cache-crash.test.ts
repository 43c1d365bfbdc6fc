// The render cache when a worker dies: a worker SIGKILLed while it renders a part the cache will
// keep, or while it copies cached parts into a render, leaves no half-written cache entry that a
// later render could copy, and the render completes once, with the frames a render from
// scratch makes. Two worker processes on PostgreSQL (the crash rig); copies go through a slow
// link to the S3 stand-in so that one can be interrupted.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listRenderParts } from "../../src/db/repositories/render-segments.ts";
import { renderCacheEntries } from "../../src/db/schema/render-cache.ts";
import { webhookDeliveries } from "../../src/db/schema/webhooks.ts";
import { renderCacheKey } from "../../src/storage/keys.ts";
import { probe } from "../fixtures/render/media.ts";
import { frameMd5 } from "../fixtures/render/seams.ts";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.ts";
import { type SlowProxy, startSlowProxy } from "../helpers/slow-proxy.ts";
import { type CrashRig, canRunCrashTests, holdsConnection, startCrashRig } from "../helpers/worker-crash.ts";
import { s3Env, storedFiles } from "../uploads/helpers.ts";
import { client, download, onServer, type RenderBody } from "./helpers.ts";

const run = promisify(execFile);
const TERMINAL = ["succeeded", "failed", "cancelled"];
const FPS = 25;
/**
 * Bytes per second of the slow link to the S3 stand-in: a cached part of the 30 s composition
 * below (10 s of video, or the audio) is 10–15 kB, so its copy takes about 3 s.
 */
const RATE = 4096;

/**
 * `seconds` of two colours joined by a wipe halfway, under a text: at 320×180 three segments
 * of `seconds / 3` each, all different (so each has a cache entry of its own), and the audio.
 */
function timeline(seconds: number, text: string) {
  const half = seconds / 2;
  return {
    name: "cache crash",
    canvas: { width: 320, height: 180, fps: FPS, background: "#000000" },
    tracks: [
      {
        kind: "video",
        clips: [
          { start: 0, duration: half, asset: { type: "color", color: "#204080" } },
          {
            start: half,
            duration: half,
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
            duration: seconds,
            asset: { type: "text", text, style: { family: "DejaVu Sans", size: 30 } },
          },
        ],
      },
    ],
  };
}

/** Decodes `file` whole, stopping at the first error (`-xerror`); returns what ffmpeg printed. */
async function decodeErrors(file: string): Promise<string> {
  const { stderr } = await run("ffmpeg", ["-v", "error", "-xerror", "-i", file, "-f", "null", "-"]);
  return stderr.trim();
}

/** Receives per-request callbacks (answers 204): the render events a client is told about. */
async function startCallbackReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

describe.skipIf(!canRunCrashTests)(
  "render cache crash (PostgreSQL only: two worker processes cannot share an embedded PGlite; set TEST_DATABASE_URL)",
  () => {
    let rig: CrashRig | undefined;
    let s3: S3TestServer | undefined;
    let proxy: SlowProxy | undefined;
    let dir: string;
    let receiver: { url: string; server: Server };
    let files = 0;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "cutroom-cache-crash-"));
      receiver = await startCallbackReceiver();
    });

    afterEach(async () => {
      await rig?.close();
      await proxy?.close();
      await s3?.stop();
      rig = undefined;
      proxy = undefined;
      s3 = undefined;
    });

    afterAll(async () => {
      receiver?.server.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** Starts a render of composition `compositionId` with a callback; returns its id. */
    async function startRender(api: ReturnType<typeof client>, compositionId: string): Promise<string> {
      const r = await api.startRender({
        compositionId,
        output: { quality: "standard" },
        callbackUrl: receiver.url,
      });
      return r.id;
    }

    /**
     * Waits for render `id` to end and expects it succeeded, once: one `render.succeeded`
     * event recorded for it and no other end. Returns its body and its output as a local file
     * (decoded whole without an error, with every frame of `seconds`).
     */
    async function expectSucceededOnce(
      r: CrashRig,
      api: ReturnType<typeof client>,
      id: string,
      seconds: number,
    ): Promise<{ end: RenderBody; file: string }> {
      const end = (await api.pollUntilTerminal(id, { timeoutMs: 120_000 })).at(-1) as RenderBody;
      expect(end.status, JSON.stringify(end.error)).toBe("succeeded");
      const events = await r.t.database.db
        .select({ type: webhookDeliveries.eventType })
        .from(webhookDeliveries)
        .where(sql`${webhookDeliveries.payload}->'data'->>'id' = ${id}`);
      expect(events.map((e) => e.type)).toEqual(["render.succeeded"]);
      const file = path.join(dir, `out${++files}.mp4`);
      const url = end.output?.url ?? "";
      // A presigned URL of S3 as it is; a URL of the local file route, on the test server.
      const got = await download(r.t.runtime.store.driver === "s3" ? url : onServer(r.base, url), file);
      expect(got.sha256).toBe(end.output?.sha256);
      expect(await decodeErrors(file)).toBe("");
      expect((await probe(file, true)).video?.frames).toBe(seconds * FPS);
      return { end, file };
    }

    /**
     * Expects account `userId`'s cache entries to be whole parts: `count` rows, each naming a
     * stored file of its size that decodes without an error, whose video frames add up to
     * `frames` (every segment's, each once). Returns the rows' keys and sizes.
     */
    async function expectWholeEntries(r: CrashRig, userId: string, count: number, frames: number) {
      const rows = await r.t.database.db
        .select()
        .from(renderCacheEntries)
        .where(eq(renderCacheEntries.userId, userId));
      expect(rows).toHaveLength(count);
      let seen = 0;
      for (const row of rows) {
        const file = path.join(dir, `entry${++files}.mp4`);
        await r.t.runtime.store.downloadTo(renderCacheKey(userId, row.key), file);
        expect((await stat(file)).size).toBe(row.bytes);
        expect(await decodeErrors(file)).toBe("");
        seen += (await probe(file, true)).video?.frames ?? 0;
      }
      expect(seen).toBe(frames);
      return rows
        .map((row) => ({ key: row.key, bytes: row.bytes }))
        .sort((a, b) => a.key.localeCompare(b.key));
    }

    it("a worker SIGKILLed while its ffmpeg renders a part the cache keeps: the render succeeds once and no partial part is kept", async () => {
      // 180 s in segments of 60 s: three video parts of ~1-2 s of encoding each (a window the
      // 100 ms poll cannot miss), and the audio; kept in the blob store on local disk.
      const seconds = 180;
      rig = await startCrashRig({ RENDER_SEGMENT_SEC: "60", WEBHOOK_ALLOW_PRIVATE: "true" });
      const account = await rig.t.createAccount();
      const api = client(rig.base, account.key);
      const comp = await api.createComposition(timeline(seconds, "kill while rendering"));
      const id = await startRender(api, comp.id);

      // SIGKILL the worker whose ffmpeg is encoding a part (its ffmpeg dies with it), and tell
      // which part from the killed ffmpeg's work directory (`rsg_…-a1-…`).
      const { childDirs } = await rig.killWorkerMidJob(async () => {
        const got = (await api.getRender(id)).body as RenderBody;
        if (TERMINAL.includes(got.status)) throw new Error(`the render ended (${got.status}) too soon`);
        return got.status === "rendering" ? got : null;
      }, ["ffmpeg"]);
      const killed = childDirs.map((d) => /^(rsg_[0-9A-Z]+)-a1-/.exec(path.basename(d))?.[1]).find(Boolean);
      expect(killed, `killed ffmpeg ran in ${childDirs.join(", ")}`).toBeDefined();

      const first = await expectSucceededOnce(rig, api, id, seconds);
      expect(first.end.reuse).toEqual({ segments: 4, reused: 0, secondsSaved: 0 });
      // Each part done once: the killed one by its second attempt, every other by its first.
      const parts = await listRenderParts(rig.t.database.db, id);
      expect(parts.map((p) => [p.id, p.status, p.attempt])).toEqual(
        parts.map((p) => [p.id, "succeeded", p.id === killed ? 2 : 1]),
      );
      // Every entry is a whole part: the killed attempt's half-encoded file was not listed.
      await expectWholeEntries(rig, account.userId, 4, seconds * FPS);

      // The same render again copies the four parts and joins them into the same frames.
      const again = await expectSucceededOnce(rig, api, await startRender(api, comp.id), seconds);
      expect(again.end.reuse).toEqual({ segments: 4, reused: 4, secondsSaved: seconds });
      expect(await frameMd5(again.file)).toEqual(await frameMd5(first.file));
    }, 120_000);

    it("a worker SIGKILLed while it copies cached parts into a render: the render succeeds once, as from scratch, and nothing partial is kept", async () => {
      // On local disk a cached part is copied by one copy_file_range of a few kB: no window to
      // kill a worker in. So the blob store is the S3 stand-in (s3rver, accepting the worker
      // processes' unadapted signatures) behind a slow link that the app and both workers use:
      // GETs of cached parts are sent at RATE bytes per second, so a copy takes seconds, as a
      // large part from a busy store would. The victim is the worker holding such a download's
      // connection.
      const seconds = 30;
      s3 = await startS3Server({ anySignature: true });
      const link = await startSlowProxy(s3.endpoint, { bytesPerSecond: RATE });
      proxy = link;
      const r = await startCrashRig({
        ...s3Env(s3),
        S3_ENDPOINT: link.endpoint,
        RENDER_SEGMENT_SEC: "10",
        WEBHOOK_ALLOW_PRIVATE: "true",
      });
      rig = r;
      const account = await r.t.createAccount();
      const api = client(r.base, account.key);
      const comp = await api.createComposition(timeline(seconds, "kill while copying"));

      // From scratch: every part rendered and kept.
      const scratch = await expectSucceededOnce(r, api, await startRender(api, comp.id), seconds);
      expect(scratch.end.reuse).toEqual({ segments: 4, reused: 0, secondsSaved: 0 });
      const entries = await expectWholeEntries(r, account.userId, 4, seconds * FPS);
      const before = await storedFiles(r.t);

      // The same render again copies the four parts from the cache, through the slow link.
      // SIGKILL the worker that holds the connection of a cached part's download under way.
      link.slows = (p) => p.includes("/render-cache/");
      const id = await startRender(api, comp.id);
      const { running } = await r.killWorkerWhen(async (workers) => {
        const got = (await api.getRender(id)).body as RenderBody;
        if (TERMINAL.includes(got.status)) throw new Error(`the render ended (${got.status}) too soon`);
        for (const d of link.downloads) {
          if (d.sent === 0 || d.sent >= d.total) continue;
          for (const w of workers) {
            if (await holdsConnection(w.child.pid as number, d.clientPort))
              return { victim: w, running: { status: got.status, ...d } };
          }
        }
        return null;
      });
      // Killed mid-copy: its render job was copying the parts before handing the render over.
      expect(running.status).toBe("preparing");
      expect(running.path).toContain(`/render-cache/${account.userId}/`);
      expect(running.sent).toBeLessThan(running.total);

      // The retry copies through the same slow link.
      const again = await expectSucceededOnce(r, api, id, seconds);
      link.slows = () => false;
      expect(again.end.reuse).toEqual({ segments: 4, reused: 4, secondsSaved: seconds });
      // The retry copied every part, once: the killed attempt had written no part row.
      const parts = await listRenderParts(r.t.database.db, id);
      expect(parts.map((p) => [p.status, p.attempt])).toEqual(parts.map(() => ["succeeded", 0]));
      expect(parts).toHaveLength(4);
      // Attempts of the render: the killed one, the retry that handed it over, and its join.
      expect(again.end.attempt).toBe(3);
      expect(await frameMd5(again.file)).toEqual(await frameMd5(scratch.file));
      // Nothing partial was kept (read back at full speed): the entries are the same whole
      // parts, and the render left its output alone in the bucket (the join deleted the copies).
      expect(await expectWholeEntries(r, account.userId, 4, seconds * FPS)).toEqual(entries);
      const added = (await storedFiles(r.t)).filter((k) => !before.includes(k));
      expect(added.length).toBeGreaterThan(0);
      expect(
        added.filter((k) => !k.startsWith(`renders/${id}/`) || k.startsWith(`renders/${id}/parts/`)),
      ).toEqual([]);
      expect(await r.healthy()).toBe(true);
    }, 120_000);
  },
);
