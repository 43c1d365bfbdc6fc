import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadPreviewProxyKey } from "../../src/storage/keys.ts";
import { ffmpeg, frameNumber, psnr, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client, waitFor } from "../renders/helpers.ts";

// Preview proxies of video uploads, through HTTP with a worker: made after the upload, used by
// preview frames where they have pixels enough, close to the original-backed frame, deleted
// with the upload.
let t: TestApp;
let base: string;
let key: string;
let api: ReturnType<typeof client>;
let dir: string;
let cleanup: () => Promise<void>;
const canvas = { width: 640, height: 360, fps: 25, background: "#000000" };
/** Upload ids: a 1280x720 clip with one keyframe, a phone clip rotated 90°, an anamorphic PAL clip (SAR 16:15), a VFR clip. */
const ids: Record<"wide" | "rotated" | "pal" | "vfr", string> = { wide: "", rotated: "", pal: "", vfr: "" };
let compId: string;

const X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "250"];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("cutroom-proxy-"));
  const f = (name: string) => path.join(dir, name);
  [t] = await Promise.all([
    startTestApp({ worker: true }),
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=2", ...X264, f("wide.mp4")]),
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=2", ...X264, f("plain.mp4")]).then(() =>
      // ffmpeg 5.1 writes the rotation (display matrix) only when remuxing with -c copy.
      ffmpeg(["-i", f("plain.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", f("rotated.mp4")]),
    ),
    ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=720x576:r=25:d=2",
      "-vf",
      "setsar=16/15",
      ...X264,
      f("pal.mp4"),
    ]),
    ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc2=s=800x450:r=30:d=2"],
      ...["-vf", "setpts='PTS+if(eq(mod(N,3),0),0.012/TB,0)'", "-fps_mode", "vfr"],
      ...X264,
      f("vfr.mkv"),
    ]),
  ]);
  base = await t.listen();
  key = (await t.createAccount()).key;
  api = client(base, key);
  const [wide, rotated, pal, vfr] = await api.upload(
    ["wide.mp4", "rotated.mp4", "pal.mp4", "vfr.mkv"].map(f),
  );
  Object.assign(ids, { wide: wide?.id, rotated: rotated?.id, pal: pal?.id, vfr: vfr?.id });
  const clip = (start: number, uploadId: string, extra: object = {}) => ({
    start,
    duration: 1.5,
    asset: { type: "video", uploadId },
    trim: 0.3,
    ...extra,
  });
  const comp = await api.createComposition({
    name: "proxies",
    canvas,
    tracks: [
      {
        kind: "video",
        clips: [
          clip(0, ids.wide, { crop: { left: 0.1, top: 0.05 }, filter: "blur" }),
          clip(1.5, ids.rotated, { fit: "contain" }),
          clip(3, ids.pal),
          clip(4.5, ids.vfr, { fit: "none" }),
        ],
      },
      {
        kind: "video",
        clips: [
          clip(0, ids.wide, { transform: { x: 0.75, y: 0.3, width: 0.35 }, motion: { type: "zoomIn" } }),
        ],
      },
    ],
  });
  compId = comp.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

describe("preview proxies", () => {
  it("are made for every video upload after it is stored, and shown on the upload", async () => {
    for (const id of Object.values(ids)) {
      const upload = await waitFor(async () => {
        const res = await api.json("GET", `/api/v1/uploads/${id}`);
        return res.body.previewProxy === "ready" ? res.body : null;
      }, 60_000);
      expect(upload.previewProxy).toBe("ready");
      expect(await t.runtime.store.stat(uploadPreviewProxyKey(id))).not.toBeNull();
    }
    const row = await t.database.db.query.uploads.findFirst({
      where: (u, { eq }) => eq(u.id, ids.wide),
    });
    expect(row?.previewProxy).toMatchObject({ status: "ready", width: 640, height: 360 });
  });

  it("back preview frames, matching the frames decoded from the originals", async () => {
    // The wide clip (cropped and blurred; zoomed in a picture-in-picture), the rotated one fitted
    // inside, the anamorphic one, the VFR one at its own pixel size (`fit: none`, so at half size).
    const cases: Array<[number, number, string]> = [
      // At 640 px the cropped clip shows 1,152 source pixels across 640: more than the 640-px
      // proxy of a 1,280-px source has, so it reads the original; the picture-in-picture (its
      // 224 px zoomed by 20 %) reads the proxy. At 320 px both read proxies.
      [0.6, 640, "proxy=1, original=1"],
      [0.6, 320, "proxy=2, original=0"],
      [2.2, 640, "proxy=1, original=0"],
      [3.8, 640, "proxy=1, original=0"],
      [5.3, 320, "proxy=1, original=0"],
    ];
    for (const [time, width, sources] of cases) {
      const viaProxy = await fetchFrame(time, `&width=${width}`);
      const viaOriginal = await fetchFrame(time, `&width=${width}&proxy=false`);
      expect(viaProxy.sources, `t=${time}`).toBe(sources);
      expect(viaOriginal.sources).toMatch(/^proxy=0, original=[12]$/);
      const a = await frameNumber(viaProxy.file, 0, width, (width * 9) / 16);
      const b = await frameNumber(viaOriginal.file, 0, width, (width * 9) / 16);
      const db = psnr(a, b);
      console.log(`t=${time} width=${width}: PSNR ${db.toFixed(1)} dB`);
      expect(db, `t=${time}`).toBeGreaterThan(30);
    }
  });

  it("are not used where the frame needs more pixels than they have", async () => {
    const wide = await fetchFrame(3.8, "&width=1280");
    expect(wide.sources).toBe("proxy=0, original=1");
  });

  it("are deleted with their upload", async () => {
    const res = await api.json("DELETE", `/api/v1/uploads/${ids.vfr}?force=true`);
    expect(res.status).toBe(204);
    expect(await t.runtime.store.stat(uploadPreviewProxyKey(ids.vfr))).toBeNull();
  });
});

/** One preview frame through HTTP, written to a file; with the `X-Preview-Sources` it answered. */
async function fetchFrame(time: number, query: string): Promise<{ file: string; sources: string | null }> {
  const res = await fetch(`${base}/api/compositions/${compId}/frame?t=${time}${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const file = path.join(dir, `frame-${time}${query.replace(/[^a-z0-9]/gi, "")}.jpg`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return { file, sources: res.headers.get("x-preview-sources") };
}
