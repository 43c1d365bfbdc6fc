import { describe, expect, it } from "vitest";
import { suggestBroll } from "./broll.ts";
import { parseText } from "./nlp.ts";
import { withWink } from "./wink-instance.ts";

const PROBE = "Captain Ahab's leg was made of whale bone. Ahab's crew feared him.";
// wink adds "Ahab's" whole to its lexicon when it meets it between brackets; a plain
// instance then stops splitting "Ahab's" into "Ahab" + "'s" in every later text.
const PRIMER = "(Ahab's) \"Ahab's\" (Ahab's Ahab's,";

describe("withWink", () => {
  it("tokenizes a text the same whatever the process analysed before", () => {
    const values = (opts: { pos: boolean; sentences: boolean }) => parseText(PROBE, opts).value;
    for (const opts of [
      { pos: true, sentences: true },
      { pos: false, sentences: false },
    ]) {
      const before = values(opts);
      expect(before).toContain("'s");
      parseText(PRIMER, opts);
      expect(values(opts)).toEqual(before);
    }
  });

  it("forgets the words a use added, and documents read during the use stay readable", () => {
    const first = withWink([], (nlp) => nlp.readDoc("zorblaxian quixotry").tokens().out());
    const again = withWink([], (nlp) => {
      const doc = nlp.readDoc("(zorblaxian) zorblaxian");
      return doc.tokens().out(nlp.its.normal);
    });
    expect(first).toEqual(["zorblaxian", "quixotry"]);
    expect(again).toEqual(["(", "zorblaxian", ")", "zorblaxian"]);
  });

  it("gives B-roll suggestions that do not depend on an earlier request", () => {
    const segments = Array.from({ length: 40 }, (_, i) => ({
      start: i * 5,
      end: i * 5 + 5,
      text: i % 3 === 0 ? "Ahab's ship, the Pequod, sailed from Nantucket with 30 men." : PROBE,
    }));
    const input = { subtitles: segments };
    const before = JSON.stringify(suggestBroll(input));
    suggestBroll({ subtitles: [{ start: 0, end: 5, text: PRIMER }] });
    expect(JSON.stringify(suggestBroll(input))).toBe(before);
  });
});
