import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

// OpenTimelineIO's own sample files (tests/sample_data, Apache-2.0; see the README there):
// written by OTIO's tools and adapters, not by Cutroom.
const DIR = path.join(import.meta.dirname, "../fixtures/interchange/otio-samples");
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith(".otio"))
  .sort();

// ---- An independent reader of the files: times straight from the JSON, no importer code. ----

// biome-ignore lint/suspicious/noExplicitAny: the reader walks arbitrary OTIO JSON
type Json = Record<string, any>;
const secs = (t: Json) => t.value / t.rate;
/** OTIO writes Inf/NaN as bare tokens; the reader needs none of them, so they become null. */
const readOtio = (file: string): Json =>
  JSON.parse(
    readFileSync(path.join(DIR, file), "utf8").replace(
      /("(?:[^"\\]|\\.)*")|-?(?:Infinity|Inf)\b|\bNaN\b/g,
      (_m, s) => s ?? "null",
    ),
  );
const reference = (clip: Json): Json | null =>
  clip.media_reference ?? clip.media_references?.[clip.active_media_reference_key ?? "DEFAULT_MEDIA"] ?? null;
const carried = (ref: Json | null) =>
  ref?.OTIO_SCHEMA !== "GeneratorReference.1" || ref.generator_kind === "SolidColor";
const base = (url: string) => decodeURIComponent(url.split(/[?#]/)[0]?.split("/").pop() ?? "");
/** The upload name a clip's media is matched by. */
const mediaName = (clip: Json, ref: Json | null) =>
  ref?.OTIO_SCHEMA === "ExternalReference.1" ? base(ref.target_url) : ref?.name || clip.name;

const isCarriedClip = (item: Json | undefined) =>
  !!item && /^Clip\./.test(item.OTIO_SCHEMA) && item.enabled !== false && carried(reference(item));

interface Expected {
  rate: number;
  tracks: {
    clips: { start: number; duration: number; trim: number }[];
    transitions: {
      at: number;
      duration: number;
      path: string;
      opens: boolean;
      intoClip: boolean;
      fromClip: boolean;
    }[];
  }[];
  markers: { time: number; label: string }[];
  /** Upload name → seconds of source the file needs. */
  media: Map<string, number>;
  /** Upload names used on audio tracks. */
  sound: Set<string>;
}

/** Length of a nested stack or track as it sits on its parent track. */
function nestedLength(item: Json): number {
  if (item.source_range) return secs(item.source_range.duration);
  const lengths = (item.children as Json[]).map((c) =>
    c.OTIO_SCHEMA === "Transition.1" ? 0 : c.source_range ? secs(c.source_range.duration) : nestedLength(c),
  );
  return /^Stack\./.test(item.OTIO_SCHEMA) ? Math.max(0, ...lengths) : lengths.reduce((a, b) => a + b, 0);
}

function collectMedia(item: Json, media: Map<string, number>, sound: Set<string>, audio = false): void {
  if (/^Clip\./.test(item.OTIO_SCHEMA)) {
    const ref = reference(item);
    if (!carried(ref)) return;
    const range = item.source_range ?? ref?.available_range;
    const end =
      secs(range.start_time) +
      secs(range.duration) -
      (ref?.available_range ? secs(ref.available_range.start_time) : 0);
    const name = mediaName(item, ref);
    media.set(name, Math.max(media.get(name) ?? 0, end));
    if (audio) sound.add(name);
  }
  for (const child of item.children ?? []) collectMedia(child, media, sound, audio || item.kind === "Audio");
}

function expected(file: string): Expected {
  const doc = readOtio(file);
  const markers = (doc.tracks.markers ?? []).map((m: Json) => ({
    time: secs(m.marked_range.start_time),
    label: m.name ?? "",
  }));
  const media = new Map<string, number>();
  const sound = new Set<string>();
  collectMedia(doc.tracks, media, sound);
  let rate: number | undefined = doc.global_start_time?.rate;
  const tracks = (doc.tracks.children as Json[]).map((track, j) => {
    // A track's source_range shows [from, to) of its children's time; one that misses every
    // child is not applied (the importer warns).
    const length = !track.source_range
      ? 0
      : (track.children as Json[]).reduce(
          (sum, c) =>
            sum +
            (c.OTIO_SCHEMA === "Transition.1"
              ? 0
              : c.source_range
                ? secs(c.source_range.duration)
                : /^(Stack|Track)\./.test(c.OTIO_SCHEMA)
                  ? nestedLength(c)
                  : secs((reference(c) as Json).available_range.duration)),
          0,
        );
    const own = track.source_range && {
      from: secs(track.source_range.start_time),
      to: secs(track.source_range.start_time) + secs(track.source_range.duration),
    };
    const applied = !!own && own.from < length && own.to > 0;
    const { from, to } = applied ? own : { from: 0, to: Number.POSITIVE_INFINITY };
    for (const m of track.markers ?? [])
      markers.push({ time: secs(m.marked_range.start_time) - from, label: m.name ?? "" });
    const clips: Expected["tracks"][number]["clips"] = [];
    const transitions: Expected["tracks"][number]["transitions"] = [];
    let cursor = 0;
    (track.children as Json[]).forEach((item, i) => {
      const itemPath = `/tracks/children/${j}/children/${i}`;
      if (item.OTIO_SCHEMA === "Transition.1") {
        const next = track.children[i + 1];
        if (cursor <= from || cursor >= to) return;
        transitions.push({
          at: cursor - from,
          duration: secs(item.in_offset) + secs(item.out_offset),
          path: itemPath,
          opens: i === 0,
          intoClip: isCarriedClip(next),
          fromClip: isCarriedClip(track.children[i - 1]),
        });
        return;
      }
      if (/^(Stack|Track)\./.test(item.OTIO_SCHEMA)) {
        cursor += nestedLength(item);
        return;
      }
      const ref = /^Clip\./.test(item.OTIO_SCHEMA) ? reference(item) : null;
      const range = item.source_range ?? ref?.available_range;
      rate ??= range.duration.rate;
      const duration = secs(range.duration);
      if (/^Clip\./.test(item.OTIO_SCHEMA)) {
        const sourceStart = secs(range.start_time);
        const trim = sourceStart - (ref?.available_range ? secs(ref.available_range.start_time) : 0);
        // A disabled clip or a generator Cutroom has no equivalent of leaves empty time.
        const a = Math.max(cursor, from);
        const b = Math.min(cursor + duration, to);
        if (carried(ref) && item.enabled !== false && b > a)
          clips.push({ start: a - from, duration: b - a, trim: trim + (a - cursor) });
        for (const m of item.markers ?? []) {
          const at = cursor + secs(m.marked_range.start_time) - sourceStart;
          if (!applied || (at >= a && at < b)) markers.push({ time: at - from, label: m.name ?? "" });
        }
      }
      cursor += duration;
    });
    return { clips, transitions };
  });
  return { rate: rate ?? 24, tracks, markers, media, sound };
}

// ---- The app, and media uploaded under the names the files use. ----

let t: TestApp;
let key: string;
/** An account without uploads: every reference is unmatched. */
let offlineKey: string;
let cleanup: () => Promise<void>;
const close = (a: number, b: number) => Math.abs(a - b) < 2e-3;

/** Sends the file's own text (OTIO's JSON, Inf and NaN included) wrapped in the import options. */
async function importFile(file: string, options: Record<string, unknown>, k = key) {
  const text = readFileSync(path.join(DIR, file), "utf8");
  const fields = Object.entries(options).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return t.app.inject({
    method: "POST",
    url: "/api/compositions/import",
    headers: { ...bearer(k), "content-type": "application/json" },
    payload: `{"otio":${text}${fields.join("")}}`,
  });
}

beforeAll(async () => {
  const tmp = await tempDir("cutroom-otio-samples-");
  cleanup = tmp.cleanup;
  const media = new Map<string, number>();
  const sound = new Set<string>();
  for (const file of FILES) {
    const want = expected(file);
    for (const [name, end] of want.media) media.set(name, Math.max(media.get(name) ?? 0, end));
    for (const name of want.sound) sound.add(name);
  }
  const longest = Math.ceil(Math.max(...media.values())) + 5;
  const video = path.join(tmp.dir, "long.mp4");
  const audio = path.join(tmp.dir, "tone.m4a");
  const still = path.join(tmp.dir, "still.png");
  const withSound = path.join(tmp.dir, "with-sound.mp4");
  const soundLength = Math.ceil(Math.max(...[...sound].map((n) => media.get(n) ?? 0))) + 5;
  const gray = (seconds: number) => ["-f", "lavfi", "-i", `color=c=gray:s=32x32:r=4:d=${seconds}`];
  const tone = (seconds: number) => ["-f", "lavfi", "-i", `sine=f=440:sample_rate=8000:d=${seconds}`];
  const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  const aac = ["-ac", "1", "-c:a", "aac", "-b:a", "16k"];
  const [app] = await Promise.all([
    startTestApp(),
    ffmpeg([...gray(longest), ...x264, video]),
    ffmpeg([...tone(longest), ...aac, audio]),
    ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=32x32", "-frames:v", "1", still]),
    ffmpeg([...gray(soundLength), ...tone(soundLength), ...x264, ...aac, withSound]),
  ]);
  t = app;
  const url = await t.listen();
  key = (await t.createAccount()).key;
  offlineKey = (await t.createAccount()).key;
  const bytes = {
    video: readFileSync(video),
    audio: readFileSync(audio),
    still: readFileSync(still),
    withSound: readFileSync(withSound),
  };
  const names = [...media.keys()];
  // Twenty files per request at most.
  for (let i = 0; i < names.length; i += 20) {
    const form = new FormData();
    for (const name of names.slice(i, i + 20)) {
      const kind = /\.(png|jpe?g)$/i.test(name)
        ? "still"
        : /\.(wav|aiff?|mp3)$/i.test(name)
          ? "audio"
          : sound.has(name)
            ? "withSound"
            : "video";
      form.append("file", new Blob([bytes[kind]]), name);
    }
    const res = await fetch(`${url}/api/v1/uploads`, { method: "POST", headers: bearer(key), body: form });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  // Generous: an hour of tiny media and every sample's uploads, probed, on a busy machine (6 min seen at load 30).
}, 600_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

/** The parts of an imported composition the checks read. */
interface Imported {
  canvas: { fps: number };
  tracks: {
    clips: {
      start: number;
      duration: number;
      trim?: number;
      fadeIn?: number;
      fadeOut?: number;
      transition?: { duration: number };
    }[];
  }[];
  markers?: { time: number; label: string }[];
  warnings: { path: string; message: string }[];
}

const sortedMarkers = (ms: { time: number; label: string }[]) =>
  ms
    .map((m) => ({ label: m.label, time: Math.round(Math.max(0, m.time) * 1000) / 1000 }))
    .sort((a, b) => a.time - b.time || a.label.localeCompare(b.label));

describe("OpenTimelineIO's own sample files", () => {
  it.each(FILES)(
    "%s imports with its media: rate, clip times, transitions and markers as the file has them",
    async (file) => {
      const want = expected(file);
      const res = await importFile(file, {});
      expect(res.statusCode, res.body).toBe(201);
      const got = res.json() as Imported;
      expect(got.canvas.fps).toBeCloseTo(want.rate, 2);
      expect(got.tracks).toHaveLength(want.tracks.length);
      const warned = new Set(got.warnings.map((w) => w.path));
      want.tracks.forEach((track, j) => {
        const clips = got.tracks[j]?.clips ?? [];
        for (const c of track.clips) {
          const match = clips.find((g) => close(g.start, c.start) && close(g.duration, c.duration));
          expect(
            match,
            `${file} track ${j}: a clip at ${c.start} s for ${c.duration} s in ${JSON.stringify(clips)}`,
          ).toBeDefined();
          expect(match?.trim ?? 0).toBeCloseTo(Math.max(0, c.trim), 3);
        }
        for (const tr of track.transitions) {
          if (!tr.opens && !tr.intoClip && !tr.fromClip) continue; // between two empty times: nothing to show
          const into = clips.find((g) => close(g.start, tr.at));
          const outOf = clips.find((g) => close(g.start + g.duration, tr.at));
          const length = tr.opens ? into?.fadeIn : tr.intoClip ? into?.transition?.duration : outOf?.fadeOut;
          expect(length, `${file} ${tr.path}`).toBeDefined();
          // Shortened only with a warning naming the transition.
          if (warned.has(`/otio${tr.path}`)) expect(length).toBeLessThan(tr.duration);
          else expect(length).toBeCloseTo(tr.duration, 3);
        }
      });
      expect(sortedMarkers(got.markers ?? [])).toEqual(sortedMarkers(want.markers));
    },
  );

  it.each(FILES)(
    '%s imports without media ("unmatched": "gap"): every clip\'s time left empty, markers kept',
    async (file) => {
      const want = expected(file);
      const res = await importFile(file, { unmatched: "gap" }, offlineKey);
      expect(res.statusCode, res.body).toBe(201);
      const got = res.json() as Imported;
      expect(got.canvas.fps).toBeCloseTo(want.rate, 2);
      expect(got.tracks).toHaveLength(want.tracks.length);
      for (const track of got.tracks) expect(track.clips).toEqual([]);
      expect(sortedMarkers(got.markers ?? [])).toEqual(sortedMarkers(want.markers));
    },
  );

  it.each(FILES)("%s round-trips: import → export → import gives the same composition", async (file) => {
    const first = await importFile(file, {});
    expect(first.statusCode, first.body).toBe(201);
    const a = first.json();
    const exported = await t.app.inject({
      method: "GET",
      url: `/api/compositions/${a.id}/export?format=otio`,
      headers: bearer(key),
    });
    expect(exported.statusCode).toBe(200);
    const again = await t.app.inject({
      method: "POST",
      url: "/api/compositions/import",
      headers: { ...bearer(key), "content-type": "application/json" },
      payload: exported.body,
    });
    expect(again.statusCode, again.body).toBe(201);
    const b = again.json();
    expect(b.warnings).toEqual([]);
    for (const field of ["name", "canvas", "tracks", "markers", "metadata"])
      expect(b[field], field).toEqual(a[field]);
  });

  it("lists what it cannot carry as warnings with the item's path", async () => {
    const effects = (await importFile("effects.otio", {})).json() as Imported;
    expect(effects.warnings).toContainEqual({
      path: "/otio/tracks/children/0/children/0/effects/0",
      message: 'effect not carried: Effect.1 "Resolve Effect"',
    });
    const nested = (
      await importFile("nested_example.otio", { unmatched: "gap" }, offlineKey)
    ).json() as Imported;
    expect(nested.warnings.map((w) => w.path)).toEqual(
      expect.arrayContaining([
        "/otio/tracks/children/0/children/3/effects/0",
        "/otio/tracks/children/0/children/5/effects/0",
      ]),
    );
    const generator = (await importFile("generator_reference_test.otio", {})).json() as Imported;
    expect(generator.warnings).toEqual([
      {
        path: "/otio/tracks/children/0/children/0",
        message: expect.stringContaining('generator "SMPTEBars" not carried'),
      },
    ]);
  });
});
