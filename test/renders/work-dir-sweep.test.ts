import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { insertRender } from "../../src/db/repositories/renders.ts";
import type { RenderStatus } from "../../src/db/schema/renders.ts";
import { renderWorkDirs } from "../../src/domain/render-jobs/render-job.ts";
import { newId } from "../../src/ids.ts";
import { scratchWorkDirPrefix, scratchWorkDirs } from "../../src/queue/scratch-work-dirs.ts";
import { sweepWorkDirs } from "../../src/queue/work-dir-sweep.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const sweepRenderWorkDirs = (db: Db, root: string) => sweepWorkDirs(root, [renderWorkDirs(db)]);

let t: TestApp;
let root: string;
beforeAll(async () => {
  t = await startTestApp({ worker: false });
  root = await mkdtemp(path.join(tmpdir(), "cutroom-work-"));
});
afterAll(async () => {
  await t.close();
  await rm(root, { recursive: true, force: true });
});

describe("render work-directory sweep", () => {
  it("removes the directories of ended or superseded attempts and keeps running ones", async () => {
    const { userId } = await t.createAccount();
    const render = async (status: RenderStatus, attempt: number) => {
      const id = newId("rnd");
      await insertRender(t.database.db, {
        id,
        userId,
        compositionId: newId("cmp"),
        compositionVersion: 1,
        composition: { canvas: { width: 16, height: 16, fps: 25, background: "#000000" }, tracks: [] },
        options: { format: "mp4" },
        progress: { ratio: 0, phase: "queued", updatedAt: new Date().toISOString() },
        status,
        attempt,
      });
      return id;
    };
    const dir = async (name: string) => {
      await mkdir(path.join(root, name));
      await writeFile(path.join(root, name, "partial.mp4"), Buffer.alloc(1024));
      return name;
    };
    const running = await render("rendering", 2);
    const done = await render("succeeded", 1);
    const failed = await render("failed", 3);
    const kept = [
      await dir(`${running}-a2-x1y2z3`), // the current attempt: maybe on another worker
      await dir("not-a-render-dir"),
    ];
    const removed = [
      await dir(`${running}-a1-abcdef`), // superseded by attempt 2 (its worker was killed)
      await dir(`${done}-a1-qwerty`),
      await dir(`${failed}-a3-zzzzzz`),
      await dir(`${newId("rnd")}-a1-gone00`), // no such render
    ];
    await writeFile(path.join(root, `${done}-a1-file`), "a file, not a directory");

    const swept = await sweepRenderWorkDirs(t.database.db, root);
    expect([...swept].sort()).toEqual([...removed].sort());
    expect((await readdir(root)).sort()).toEqual([...kept, `${done}-a1-file`].sort());
    expect(await sweepRenderWorkDirs(t.database.db, root)).toEqual([]);
  });

  it("removes a preflight's scratch directory only once it is over an hour old (its process died)", async () => {
    const fresh = `${scratchWorkDirPrefix("pfl")}abc123`;
    await mkdir(path.join(root, fresh));
    await mkdir(path.join(root, "pfl_NOTAULID-a1-x"));
    expect(await sweepWorkDirs(root, [scratchWorkDirs("pfl")])).toEqual([]);
    const later = () => new Date(Date.now() + 61 * 60_000);
    expect(await sweepWorkDirs(root, [scratchWorkDirs("pfl", later)])).toEqual([fresh]);
    expect(await readdir(root)).toContain("pfl_NOTAULID-a1-x");
    await rm(path.join(root, "pfl_NOTAULID-a1-x"), { recursive: true });
  });

  it("sweeps each kind of scratch directory (preview frames and videos) by its own owner", async () => {
    const video = `${scratchWorkDirPrefix("pvw")}abc123`;
    const frame = `${scratchWorkDirPrefix("frm")}abc123`;
    await mkdir(path.join(root, video));
    await mkdir(path.join(root, frame));
    const later = () => new Date(Date.now() + 61 * 60_000);
    expect(await sweepWorkDirs(root, [scratchWorkDirs("pvw", later)])).toEqual([video]);
    expect(await sweepWorkDirs(root, [scratchWorkDirs("frm", later)])).toEqual([frame]);
  });

  it("does nothing when WORK_DIR does not exist yet", async () => {
    expect(await sweepRenderWorkDirs(t.database.db, path.join(root, "missing"))).toEqual([]);
  });
});
