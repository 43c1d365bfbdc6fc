import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillerKey, isFiller } from "../analysis/fillers.ts";
import { merged, type SourceRange, sourceSpan } from "./recut.ts";
import { inStep, pauseCuts, removePauses, type TimedWord } from "./remove-pauses.ts";
import type { Clip, Timeline } from "./schema.ts";
import { validateComposition } from "./validate.ts";

const UPLOAD = "upl_talk";
const video = { type: "video" as const, uploadId: UPLOAD };
const caption = {
  type: "caption" as const,
  style: { family: "DejaVu Sans", size: 24 },
  source: { transcriptionId: "trn_talk" },
};

/** Every clip of the recording, in timeline order. */
const talkClips = (t: Timeline) =>
  t.tracks
    .flatMap((x) => x.clips)
    .filter((c) => c.asset.type === "video")
    .sort((a, b) => a.start - b.start);

const validates = (doc: Timeline) =>
  validateComposition(
    { name: "pauses", ...doc },
    {
      lookupUpload: async (ids) =>
        new Map(ids.map((id) => [id, { type: "video", media: { duration: 600, hasAudio: true } }])),
      lookupTranscription: async (ids) => new Map(ids.map((id) => [id, { status: "succeeded" as const }])),
    },
  );

/** A recording: words (some fillers) with gaps between them, and the gaps as its silences. */
const recording = fc
  .array(
    fc.record({
      gap: fc.double({ min: 0.02, max: 2.5, noNaN: true }),
      length: fc.double({ min: 0.15, max: 0.7, noNaN: true }),
      filler: fc.boolean(),
    }),
    { minLength: 3, maxLength: 40 },
  )
  .map((items) => {
    const words: TimedWord[] = [];
    const silences: SourceRange[] = [];
    let at = 0;
    items.forEach((item, i) => {
      silences.push({ start: at, end: at + item.gap });
      at += item.gap;
      words.push({ start: at, end: at + item.length, text: item.filler && i % 2 ? "umm," : `word${i}` });
      at += item.length;
    });
    silences.push({ start: at, end: at + 1 });
    return { words, silences, length: at + 1 };
  });

/** A composition playing parts of the recording: clips (some sped up) with captions in step, music, a title, markers. */
const composition = (length: number) =>
  fc
    .record({
      cuts: fc.uniqueArray(fc.double({ min: 0.05, max: 0.95, noNaN: true }), { minLength: 1, maxLength: 3 }),
      speeds: fc.array(fc.constantFrom(1, 1, 2, 0.5), { minLength: 4, maxLength: 4 }),
      gaps: fc.array(fc.constantFrom(0, 0, 1.5), { minLength: 4, maxLength: 4 }),
      captioned: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      markers: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
    })
    .map(({ cuts, speeds, gaps, captioned, markers }): Timeline => {
      const bounds = [0, ...cuts.sort((a, b) => a - b).map((c) => c * length), length];
      const clips: Clip[] = [];
      const captions: Clip[] = [];
      let start = 0;
      bounds.slice(1).forEach((end, i) => {
        const trim = bounds[i] as number;
        if (end - trim < 0.3) return;
        const speed = speeds[i] ?? 1;
        start += gaps[i] ?? 0;
        const duration = Math.round(((end - trim) / speed) * 1000) / 1000;
        const clip: Clip = { id: `clp_${i}`, start, duration, trim, speed, asset: video };
        clips.push(clip);
        if (captioned[i]) captions.push({ ...clip, id: `cap_${i}`, asset: caption });
        start = Math.round((start + duration) * 1000) / 1000;
      });
      return {
        canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
        tracks: [
          { id: "trk_talk", kind: "video", clips },
          { id: "trk_captions", kind: "video", clips: captions },
          {
            id: "trk_titles",
            kind: "video",
            clips: [
              {
                id: "clp_title",
                start: start / 3,
                duration: start / 3,
                fadeIn: Math.round(Math.min(0.5, start / 6) * 1000) / 1000,
                asset: { type: "color", color: "#ff0000" },
              },
            ],
          },
          {
            id: "trk_music",
            kind: "audio",
            clips: [
              { id: "clp_music", start: 0, duration: start, asset: { type: "audio", uploadId: "upl_music" } },
            ],
          },
        ],
        markers: markers.map((m, i) => ({
          id: `mrk_${i}`,
          time: Math.round(m * start * 1000) / 1000,
          label: `m${i}`,
        })),
      };
    });

/** Where source second `s` plays in `clips` (timeline seconds), if it does. */
function timeOfSource(clips: readonly Clip[], s: number): number | undefined {
  for (const c of clips) {
    const span = sourceSpan(c);
    if (s >= span.start - 1e-6 && s <= span.end + 1e-6) return c.start + (s - span.start) / (c.speed ?? 1);
  }
  return undefined;
}

describe("removePauses", () => {
  it("cuts never overlap, durations add up, captions and markers ripple with their clips, speech is kept with its pad", async () => {
    const scenario = recording.chain((rec) =>
      fc.record({
        rec: fc.constant(rec),
        doc: composition(rec.length),
        fillers: fc.boolean(),
        derived: fc.boolean(),
        minSilence: fc.constantFrom(0.5, 0.75, 1.2),
        pad: fc.constantFrom(0, 0.1, 0.15, 0.25),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rec, doc, fillers, derived, minSilence, pad }) => {
        const before = structuredClone(doc);
        const out = removePauses(doc, {
          uploadId: UPLOAD,
          words: rec.words,
          ...(derived ? {} : { silences: rec.silences }),
          minSilence,
          fillers,
          language: "en",
          pad,
        });
        expect(doc).toEqual(before); // pure: the input is untouched
        const after = out.composition;
        // The cut list: sorted, apart, inside the timeline.
        out.cuts.forEach((c, i) => {
          expect(c.end).toBeGreaterThan(c.start);
          if (i > 0) expect(c.start).toBeGreaterThanOrEqual((out.cuts[i - 1] as SourceRange).end);
        });
        // Durations add up: the talk track lost exactly what the cut list removed.
        const total = (t: Timeline) => talkClips(t).reduce((n, c) => n + c.duration, 0);
        const cutSeconds = out.cuts.reduce((n, c) => n + c.end - c.start, 0);
        expect(total(before) - total(after)).toBeCloseTo(out.removed.seconds, 1);
        expect(cutSeconds).toBeCloseTo(out.removed.seconds, 2);
        expect(out.silences.seconds + out.fillers.seconds).toBeLessThanOrEqual(out.removed.seconds + 0.01);
        // The music bed is shortened by the cuts it spans (it spans them all).
        const music = after.tracks[3]?.clips[0];
        expect(music?.duration).toBeCloseTo((before.tracks[3]?.clips[0]?.duration ?? 0) - cutSeconds, 2);
        // Captions stay in step with a piece of their clip.
        const pieces = talkClips(after);
        for (const cap of after.tracks[1]?.clips ?? []) expect(pieces.some((p) => inStep(p, cap))).toBe(true);
        // Nothing of speech is cut, nor its pad (words whose padded span lies in one clip).
        const spoken = rec.words.filter((w) => !(fillers && isFiller(w.text, "en")));
        for (const w of spoken) {
          const padded = { start: w.start - pad, end: w.end + pad };
          const home = talkClips(before).find((c) => {
            const span = sourceSpan(c);
            return span.start <= padded.start && padded.end <= span.end;
          });
          if (!home) continue;
          const kept = merged(pieces.map(sourceSpan));
          // Timeline times are whole milliseconds: at 2× speed a piece may end 2 ms of source early.
          const ms = 0.0021;
          expect(kept.some((k) => k.start <= padded.start + ms && padded.end <= k.end + ms)).toBe(true);
        }
        // A marker on a kept source moment stays on that moment.
        for (const m of before.markers ?? []) {
          const clip = talkClips(before).find((c) => c.start <= m.time && m.time < c.start + c.duration);
          if (!clip) continue;
          const s = (clip.trim ?? 0) + (m.time - clip.start) * (clip.speed ?? 1);
          const at = timeOfSource(pieces, s);
          if (at === undefined) continue; // the moment was cut: the marker went to the cut
          const moved = after.markers?.find((x) => x.id === m.id);
          expect(moved?.time).toBeCloseTo(at, 1);
        }
        await expect(validates(after)).resolves.toBeUndefined();
      }),
      { seed: 20261128, numRuns: 60 },
    );
  });

  it("cuts silences longer than the minimum with the pad kept, and fillers from the word before", () => {
    const words: TimedWord[] = [
      { start: 0.5, end: 1, text: "Hello" },
      { start: 1.2, end: 1.5, text: "um," },
      { start: 1.6, end: 2, text: "world" },
      { start: 4, end: 4.5, text: "again" },
    ];
    const cuts = pauseCuts({ uploadId: UPLOAD, words, fillers: true, pad: 0.1, minSilence: 0.75 });
    expect(cuts.fillers).toEqual([{ start: 1.1, end: 1.5 }]);
    expect(cuts.silences.map((r) => ({ start: +r.start.toFixed(3), end: +r.end.toFixed(3) }))).toEqual([
      { start: 2.1, end: 3.9 },
    ]);
    // Without fillers asked, the "um" is speech.
    expect(pauseCuts({ uploadId: UPLOAD, words, pad: 0.1 }).fillers).toEqual([]);
  });

  it("says what it removed", () => {
    const doc: Timeline = {
      canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
      tracks: [{ id: "trk", kind: "video", clips: [{ id: "c", start: 0, duration: 10, asset: video }] }],
    };
    const silences = [
      { start: 1, end: 3 },
      { start: 5, end: 6.2 },
    ];
    const out = removePauses(doc, { uploadId: UPLOAD, silences, pad: 0.1 });
    expect(out.summary).toBe("removed 2 silences, 2.8 s");
    expect(out.removed).toEqual({ count: 2, seconds: 2.8 });
    expect(out.composition.tracks[0]?.clips.map((c) => [c.start, c.duration, c.trim])).toEqual([
      [0, 1.1, undefined],
      [1.1, 2.2, 2.9],
      [3.3, 3.9, 6.1],
    ]);
    const fillers = removePauses(doc, {
      uploadId: UPLOAD,
      words: [
        { start: 0, end: 1, text: "so" },
        { start: 1.5, end: 2, text: "uh" },
        { start: 2, end: 3, text: "yes" },
      ],
      removeSilences: false,
      fillers: true,
      pad: 0,
    });
    expect(fillers.summary).toBe("removed 1 filler, 1.0 s");
    expect(removePauses(doc, { uploadId: "upl_other", silences }).summary).toBe("nothing to remove");
  });
});

describe("fillers", () => {
  it("matches drawn-out spellings and punctuation, per language, never words with meaning", () => {
    expect(["Um,", "ummm", "Uh...", "erm", "hmm", "Mhm"].every((w) => isFiller(w, "en"))).toBe(true);
    expect(["like", "so", "you", "um-believable"].some((w) => isFiller(w, "en"))).toBe(false);
    expect(isFiller("Ähm", "de")).toBe(true);
    expect(isFiller("euh", "fr-FR")).toBe(true);
    expect(isFiller("este", "es")).toBe(false);
    expect(isFiller("um", "xx")).toBe(false);
    expect(fillerKey("«Ummm!»")).toBe("um");
  });
});
