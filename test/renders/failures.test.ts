// A failed render names the clip (and upload) it failed on and says why, in words the user can
// act on. The corrupt image is real; the filter failure and the killed encoder are injected by a
// stand-in `ffmpeg` first on PATH that runs the real one, perturbing only graphs whose clip ids
// ask for it (`break_xfade`: an xfade option out of range, so ffmpeg's own named-filter error
// reaches the worker; `oom_kill`: the process dies by SIGKILL, as under the out-of-memory killer).
import { execFileSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUpload } from "../../src/db/repositories/uploads.ts";
import { type MediaFixtures, makeMediaFixtures, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, type RenderBody, tinyCanvas } from "./helpers.ts";

const STAND_IN = `#!/usr/bin/env node
import { spawn } from "node:child_process";
const args = process.argv.slice(2);
const at = args.indexOf("-filter_complex");
const graph = at >= 0 ? args[at + 1] : "";
if (/@oom_kill\\b/.test(graph)) process.kill(process.pid, "SIGKILL");
if (at >= 0) args[at + 1] = graph.replace(/(xfade@break_xfade=transition=\\w+:duration=)[\\d.]+/, "$1-1");
const child = spawn(process.env.CUTROOM_TEST_REAL_FFMPEG, args, { stdio: "inherit" });
child.on("exit", (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
`;

let t: TestApp;
let api: ReturnType<typeof client>;
let userId: string;
let fx: MediaFixtures;
let dir: { dir: string; cleanup(): Promise<void> };
const savedPath = process.env.PATH;

beforeAll(async () => {
  dir = await tempDir("cutroom-failures-");
  fx = await makeMediaFixtures(dir.dir);
  const bin = path.join(dir.dir, "bin");
  await import("node:fs/promises").then((fs) => fs.mkdir(bin));
  await writeFile(path.join(bin, "ffmpeg"), STAND_IN);
  await chmod(path.join(bin, "ffmpeg"), 0o755);
  process.env.CUTROOM_TEST_REAL_FFMPEG = execFileSync("which", ["ffmpeg"], { encoding: "utf8" }).trim();
  process.env.PATH = `${bin}:${savedPath}`;
  t = await startTestApp({ worker: true });
  const account = await t.createAccount();
  userId = account.userId;
  api = client(await t.listen(), account.key);
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await t?.close();
  await dir?.cleanup();
});

/** Renders a stored composition of one video track to its end. */
async function renderTrack(clips: unknown[], background = "#000000"): Promise<RenderBody | undefined> {
  const comp = await api.createComposition({
    name: "failures",
    canvas: { ...tinyCanvas(25), background },
    tracks: [{ kind: "video", clips }],
  });
  const started = await api.startRender({ compositionId: comp.id, output: { quality: "draft" } });
  return (await api.pollUntilTerminal(started.id, { timeoutMs: 30_000 })).at(-1);
}

/** No ffmpeg words, paths or graph syntax reach the caller. */
function expectPlain(message: string | undefined): void {
  for (const internal of [/ffmpeg/i, /exited/, /filter/i, /\[\d+:[av]\]/, /\//, /\|/, /@/, /0x[0-9a-f]/]) {
    expect(message).not.toMatch(internal);
  }
}

describe("a failed render names the clip and the cause", () => {
  it("an image upload whose stored file is corrupt: ASSET_UNSUPPORTED naming the clip and upload", async () => {
    const [video, still] = await api.upload([fx.video, fx.still]);
    const row = await findUpload(t.database.db, userId, still?.id ?? "");
    const stored = t.runtime.store.localPath(row?.storageKey ?? "") ?? "";
    // Still a PNG by its signature (it probes as one), but its data cannot be decoded.
    const png = await readFile(stored);
    await writeFile(stored, Buffer.concat([png.subarray(0, 8), Buffer.alloc(png.length, 7)]));
    const end = await renderTrack([
      { id: "m1", start: 0, duration: 1, asset: { type: "video", uploadId: video?.id } },
      { id: "m3", start: 1, duration: 1, asset: { type: "image", uploadId: still?.id } },
    ]);
    expect(end?.status).toBe("failed");
    expect(end?.error).toEqual({
      code: "ASSET_UNSUPPORTED",
      retryable: false,
      clipId: "m3",
      uploadId: still?.id,
      message: `clip m3: the image could not be decoded: upload ${still?.id} is damaged, truncated or not a supported image file; replace it or remove the clip`,
    });
    expectPlain(end?.error?.message);
  });

  it("a transition that fails in the encoder names the clip it leads into, the clip before and the cut", async () => {
    const [video, red] = await api.upload([fx.video, fx.red]);
    const end = await renderTrack([
      { id: "m4", start: 0, duration: 1.5, asset: { type: "video", uploadId: video?.id } },
      {
        id: "break_xfade",
        start: 1.5,
        duration: 1.5,
        trim: 0.5,
        asset: { type: "video", uploadId: red?.id },
        transition: { type: "radial", duration: 0.5 },
      },
    ]);
    expect(end?.status).toBe("failed");
    expect(end?.error).toEqual({
      code: "FFMPEG_FAILED",
      retryable: false,
      clipId: "break_xfade",
      uploadId: red?.id,
      message:
        "clip break_xfade: the radial transition from clip m4 (0.5 s centred on the cut at 1.5 s) could not be rendered; try another transition type or a shorter duration",
    });
    expectPlain(end?.error?.message);
    const logged = t.logs.find((l) => l.includes('"ffmpeg failed"') && l.includes(end?.id ?? "?"));
    expect(JSON.parse(logged ?? "{}").stderr).toMatch(/\[xfade@break_xfade @ 0x/);
  });

  it("a failure of the whole render (the encoder killed) names no clip and says what happened", async () => {
    const end = await renderTrack([
      { id: "oom_kill", start: 0, duration: 1, asset: { type: "color", color: "#336699" } },
    ]);
    expect(end?.status).toBe("failed");
    expect(end?.error).toEqual({
      code: "FFMPEG_FAILED",
      retryable: false,
      message: expect.stringMatching(
        /^The render failed: the encoder was killed by the system \(SIGKILL\).*ran out of memory/,
      ),
    });
    expectPlain(end?.error?.message);
  });
});
