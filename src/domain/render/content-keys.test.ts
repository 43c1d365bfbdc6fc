import { describe, expect, it } from "vitest";
import {
  audioAsset,
  canvas,
  clip,
  colorAsset,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import type { Timeline } from "../composition/schema.ts";
import { type ContentKeyInput, partContentKeys } from "./content-keys.ts";
import { planSegments } from "./segments.ts";
import { toFrameRate } from "./timeline.ts";

const text = (value: string) => ({
  type: "text" as const,
  text: value,
  style: { family: "DejaVu Sans", size: 24 },
});

/**
 * 12 s at 25 fps: a background video over the whole length, a 1 s fade into a second video at
 * 6 s, a 2 s lower third at 1 s, music, a marker. Segments of 3 s: [0,75) [75,150) [150,225) [225,300).
 */
function base(): Timeline {
  return {
    canvas: canvas(320, 180, 25),
    tracks: [
      track("video", [
        clip({ id: "bg1", start: 0, duration: 6, asset: videoAsset("upl_a") }),
        clip({
          id: "bg2",
          start: 6,
          duration: 6,
          asset: videoAsset("upl_b"),
          transition: { type: "fade", duration: 1 },
        }),
      ]),
      track("video", [clip({ id: "title", start: 1, duration: 2, asset: text("Hello") })]),
      track("audio", [clip({ id: "music", start: 0, duration: 12, asset: audioAsset("upl_m") })]),
    ],
    markers: [{ id: "m1", time: 4, label: "check" }],
  };
}

const ranges = planSegments(300, toFrameRate(25), 3);

function keysOf(composition: Timeline, over: Partial<ContentKeyInput> = {}) {
  return partContentKeys(
    {
      composition,
      output: { format: "mp4" },
      sources: new Map([
        ["upl_a", "a".repeat(64)],
        ["upl_b", "b".repeat(64)],
        ["upl_m", "c".repeat(64)],
        ["upl_font", "d".repeat(64)],
      ]),
      fontUploadIds: ["upl_font"],
      encoder: { threads: 2 },
      ...over,
    },
    ranges,
  );
}

/** Which video segments' keys differ between two key sets, and whether the audio's does. */
function changed(a: ReturnType<typeof keysOf>, b: ReturnType<typeof keysOf>) {
  return {
    video: a.video.flatMap((k, i) => (k?.key === b.video[i]?.key ? [] : [i])),
    audio: a.audio?.key !== b.audio?.key,
  };
}

function edit(fn: (t: Timeline) => void): Timeline {
  const t = base();
  fn(t);
  return t;
}

describe("partContentKeys", () => {
  it("gives every part a distinct SHA-256 key, with the uploads it reads", () => {
    const keys = keysOf(base());
    const all = [...keys.video, keys.audio].map((k) => k?.key);
    expect(all.every((k) => /^[0-9a-f]{64}$/.test(k ?? ""))).toBe(true);
    expect(new Set(all).size).toBe(all.length);
    // The title (text) is in the first segment only: it alone depends on the fonts.
    expect(keys.video[0]?.uploadIds).toEqual(["upl_a", "upl_font"]);
    expect(keys.video[1]?.uploadIds).toEqual(["upl_a", "upl_b"]);
    expect(keys.video[3]?.uploadIds).toEqual(["upl_b"]);
    expect(keys.audio?.uploadIds).toEqual(["upl_a", "upl_b", "upl_m"]);
  });

  it("is the same for the same content", () => {
    expect(keysOf(base())).toEqual(keysOf(base()));
  });

  it("changes exactly the segments a retitled lower third shows in, not the audio", () => {
    const after = edit((t) => {
      const title = t.tracks[1]?.clips[0];
      if (title) title.asset = text("Goodbye");
    });
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [0], audio: false });
  });

  it("changes only the audio's key with the loudness target (and keeps it without one)", () => {
    const target = (integrated: number) =>
      edit((t) => {
        t.audio = { loudness: { integrated, truePeak: -1 } };
      });
    expect(changed(keysOf(base()), keysOf(target(-14)))).toEqual({ video: [], audio: true });
    expect(changed(keysOf(target(-14)), keysOf(target(-16)))).toEqual({ video: [], audio: true });
    const empty = edit((t) => {
      t.audio = {};
    });
    expect(keysOf(empty)).toEqual(keysOf(base()));
  });

  it("changes the segments across a transition's frames when the transition changes", () => {
    const after = edit((t) => {
      const bg2 = t.tracks[0]?.clips[1];
      if (bg2) bg2.transition = { type: "fade", duration: 2 };
    });
    // The fade is centred on 6 s (frame 150): segments 1 and 2 show it.
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [1, 2], audio: true });
  });

  it("keeps the audio's key for a change of picture only", () => {
    const after = edit((t) => {
      const bg2 = t.tracks[0]?.clips[1];
      if (bg2) {
        bg2.filter = "greyscale";
        bg2.transform = { x: 0.4 };
      }
    });
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [1, 2, 3], audio: false });
  });

  it("changes the segments and the audio a frozen clip shows and would have sounded in", () => {
    const after = edit((t) => {
      const bg2 = t.tracks[0]?.clips[1];
      if (bg2) bg2.freeze = true;
    });
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [1, 2, 3], audio: true });
  });

  it("changes only the audio for a change of sound", () => {
    const after = edit((t) => {
      const music = t.tracks[2]?.clips[0];
      if (music) music.volume = 0.5;
    });
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [], audio: true });
  });

  it("changes every key when the canvas, the quality or the encoder changes", () => {
    const every = { video: [0, 1, 2, 3], audio: true };
    const bigger = edit((t) => {
      t.canvas = canvas(640, 360, 25);
    });
    expect(changed(keysOf(base()), keysOf(bigger))).toEqual(every);
    expect(changed(keysOf(base()), keysOf(base(), { output: { format: "mp4", quality: "high" } }))).toEqual(
      every,
    );
    expect(changed(keysOf(base()), keysOf(base(), { encoder: { threads: 2, lossless: true } }))).toEqual(
      every,
    );
  });

  it("changes the keys of the parts that read an upload whose bytes differ", () => {
    const sources = new Map([
      ["upl_a", "a".repeat(64)],
      ["upl_b", "e".repeat(64)],
      ["upl_m", "c".repeat(64)],
      ["upl_font", "d".repeat(64)],
    ]);
    expect(changed(keysOf(base()), keysOf(base(), { sources }))).toEqual({ video: [1, 2, 3], audio: true });
  });

  it("changes none for names, ids, markers, metadata and clips outside a segment's frames", () => {
    const after = edit((t) => {
      for (const tr of t.tracks) {
        tr.name = "renamed";
        for (const c of tr.clips) {
          c.name = "renamed";
          c.metadata = { note: "x" };
        }
      }
      t.markers = [{ id: "m2", time: 9, label: "other" }];
      t.metadata = { project: "y" };
      const title = t.tracks[1]?.clips[0];
      if (title) title.id = "renamed-id";
      t.tracks.push(track("video", [clip({ start: 10, duration: 2, asset: colorAsset("#ff0000") })]));
    });
    // A red box at 10–12 s: the last segment only (colour clips make no sound).
    expect(changed(keysOf(base()), keysOf(after))).toEqual({ video: [3], audio: false });
  });

  it("gives no key to a part that reads a URL or an upload of unknown bytes", () => {
    const url = edit((t) => {
      const bg1 = t.tracks[0]?.clips[0];
      if (bg1) bg1.asset = { type: "video", src: "https://example.com/a.mp4" };
    });
    const keys = keysOf(url);
    // The fade at 6 s widens the third segment's frames back into the URL's clip.
    expect(keys.video.map((k) => k !== null)).toEqual([false, false, false, true]);
    expect(keys.audio).toBeNull();
    expect(keysOf(base(), { sources: new Map() }).video.every((k) => k === null)).toBe(true);
  });
});
