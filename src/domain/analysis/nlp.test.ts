import { describe, expect, it } from "vitest";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { parseText, WORD_MEMO_LIMIT } from "./nlp.ts";
import { clearModelWordMemos } from "./wink-instance.ts";

describe("parseText", () => {
  it("maps every token to its characters in the text", () => {
    const text = "We can't stop\u00a0now.  It's 10:30am, café time!\nNew line\there. 東京へ行きました。";
    const p = parseText(text, { pos: true, sentences: true });
    for (let i = 0; i < p.size; i++) {
      expect(text.slice(p.start[i], p.end[i])).toBe(p.value[i]);
    }
    expect(p.sentenceStart.length).toBeGreaterThanOrEqual(3);
    expect(p.sentenceEnd[p.sentenceEnd.length - 1]).toBe(p.size);
  });

  it("tags a common word that starts a sentence as what it is, not as a name", () => {
    const text = "Engineers still inspect the bridge. China builds bridges. Admiral Nelson sailed.";
    const p = parseText(text, { pos: true, sentences: true });
    const tagOf = (word: string) => {
      const i = p.value.indexOf(word);
      return { pos: p.pos[i], lemma: p.lemma[i], content: p.content[i] };
    };
    expect(tagOf("Engineers")).toEqual({ pos: "NOUN", lemma: "engineer", content: 1 });
    expect(tagOf("inspect").pos).toBe("VERB");
    // Names stay names: listed capitalised (China), followed by a capital (Admiral Nelson).
    expect(tagOf("China").pos).toBe("PROPN");
    expect(tagOf("Admiral").pos).toBe("PROPN");
    // Values, offsets and sentences are those of the text as written.
    expect(p.value[0]).toBe("Engineers");
    expect(p.sentenceStart).toHaveLength(3);
    // After an opening quote too.
    const quoted = parseText('"Engineers inspect the bridge," she said.', { pos: true, sentences: true });
    expect(quoted.pos[quoted.value.indexOf("Engineers")]).toBe("NOUN");
  });
});

describe("parseText word memos", () => {
  const text =
    makeTopicTalk({ topics: ["coffee", "hiking", "finance", "gardening"] })
      .segments.map((s) => s.text)
      .join("\n") +
    "\nWe can't stop\u00a0now. Ahab's ship, let's go! It's 10:30am, café time. 東京へ行きました。";
  const columns = (opts: { pos: boolean; sentences: boolean; lemmas?: boolean }) => {
    const p = parseText(text, opts);
    return { ...p, form: undefined, forms: undefined };
  };
  for (const opts of [
    { pos: true, sentences: true },
    { pos: true, sentences: false },
    { pos: false, sentences: false, lemmas: false },
  ]) {
    it(`give the same parse cold and warm (${JSON.stringify(opts)})`, () => {
      clearModelWordMemos();
      const cold = columns(opts);
      expect(columns(opts)).toEqual(cold);
      // Past the memos' bound: older words are dropped, the parse stays the same.
      const many = Array.from({ length: 2 * WORD_MEMO_LIMIT + 10 }, (_, i) => `w${i.toString(36)}`).join(" ");
      parseText(many, opts);
      expect(columns(opts)).toEqual(cold);
    });
  }
});
