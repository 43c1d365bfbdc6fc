// The editing tools' patch builders (console/src/tools.ts), applied with fast-json-patch: a
// video dropped on an audio track lands on a video track, titles and captions go on a track of
// their own above the picture, presets keep the canvas's long edge, settings change only what
// differs.
import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import type { Composition } from "../../clients/typescript/src/types.ts";
import {
  aspectSize,
  dropOps,
  onFrame,
  overlayClipOps,
  settingsOps,
  textStyleFor,
  trackContent,
} from "../../console/src/tools.ts";

type Clip = Composition["tracks"][number]["clips"][number];

const video = (start: number, duration: number) =>
  ({ start, duration, asset: { type: "video", uploadId: "upl_v" } }) as Omit<Clip, "id">;

function composition(tracks: Composition["tracks"]): Composition {
  return {
    id: "cmp_1",
    projectId: null,
    name: "Cut",
    schemaVersion: 1,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    canvas: { width: 1920, height: 1080, fps: 23.976, background: "#000000" },
    tracks,
  };
}

const apply = (c: Composition, ops: unknown[]) =>
  jsonPatch.applyPatch(structuredClone(c), ops as jsonPatch.Operation[], true, false).newDocument;

describe("editing tools", () => {
  it("puts a video dropped on an audio track on a free video track, else a new one, saying why", () => {
    const empty = composition([
      { id: "v", kind: "video", clips: [] },
      { id: "a", kind: "audio", clips: [] },
    ]);
    const first = dropOps(empty, 1, video(0, 4.171));
    expect(first.moved).toMatch(/an audio track holds sound only, so it went on track 1/);
    expect(apply(empty, first.ops).tracks.map((t) => t.clips.length)).toEqual([1, 0]);

    const busy = composition([
      { id: "v", kind: "video", clips: [{ id: "c", ...video(0, 5) }] },
      { id: "a", kind: "audio", clips: [] },
    ]);
    const second = dropOps(busy, 1, video(2, 1));
    expect(second.moved).toMatch(/a new video track/);
    const after = apply(busy, second.ops);
    expect(after.tracks).toHaveLength(3);
    expect(after.tracks[2]).toMatchObject({ kind: "video", clips: [{ start: 2 }] });
    // A track of the right kind takes the clip as dropped.
    expect(dropOps(busy, 0, video(5, 1))).toMatchObject({ track: 0, moved: null });
  });

  it("stacks titles on a text track above the picture, a new one when it is busy", () => {
    const c = composition([{ id: "v", kind: "video", clips: [{ id: "c", ...video(0, 5) }] }]);
    const title = {
      start: 1,
      duration: 3,
      asset: { type: "text", text: "Hi", style: textStyleFor("title", 1080) },
    } as Omit<Clip, "id">;
    const once = apply(c, overlayClipOps(c, title, "Text"));
    expect(once.tracks[1]).toMatchObject({ kind: "video", name: "Text", clips: [{ start: 1 }] });
    expect(trackContent(once.tracks[1] as Composition["tracks"][number])).toBe("text");
    expect(trackContent(once.tracks[0] as Composition["tracks"][number])).toBe("video");
    const later = { ...title, start: 4 };
    const free = overlayClipOps(
      {
        ...once,
        tracks: once.tracks.map((t, i) => ({
          ...t,
          id: `t${i}`,
          clips: t.clips.map((x, j) => ({ ...x, id: `c${i}${j}` })),
        })),
      },
      later,
      "Text",
    );
    expect(free).toEqual([{ op: "add", path: "/tracks/1/clips/-", value: later }]);
    const overlapping = overlayClipOps(
      {
        ...once,
        tracks: once.tracks.map((t, i) => ({
          ...t,
          id: `t${i}`,
          clips: t.clips.map((x, j) => ({ ...x, id: `c${i}${j}` })),
        })),
      },
      { ...title, start: 2 },
      "Text",
    );
    expect(overlapping[0]).toMatchObject({ op: "add", path: "/tracks/-" });
  });

  it("keeps the long edge for aspect presets and snaps tool times to the frame grid", () => {
    expect(aspectSize({ width: 1920, height: 1080 }, 9, 16)).toEqual({ width: 1080, height: 1920 });
    expect(aspectSize({ width: 320, height: 180 }, 9, 16)).toEqual({ width: 180, height: 320 });
    expect(aspectSize({ width: 1080, height: 1920 }, 1, 1)).toEqual({ width: 1920, height: 1920 });
    expect(aspectSize({ width: 1280, height: 720 }, 16, 9)).toEqual({ width: 1280, height: 720 });
    expect(onFrame(1, 23.976)).toBeCloseTo(1.001, 6);
    expect(onFrame(-3, 25)).toBe(0);
  });

  it("changes only the settings that differ", () => {
    const c = composition([]);
    expect(
      settingsOps(c, { name: "Cut", width: 1920, height: 1080, fps: 23.976, background: "#000000" }),
    ).toEqual([]);
    expect(
      settingsOps(c, { name: "Cut 2", width: 1080, height: 1920, fps: 23.976, background: "#112233" }),
    ).toEqual([
      { op: "replace", path: "/name", value: "Cut 2" },
      { op: "replace", path: "/canvas/width", value: 1080 },
      { op: "replace", path: "/canvas/height", value: 1920 },
      { op: "replace", path: "/canvas/background", value: "#112233" },
    ]);
  });
});
