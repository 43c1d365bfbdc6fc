import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import model from "wink-eng-lite-web-model";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { type LexicalScan, scanLexemes, scanWhole } from "./lexical-scan.ts";
import { parseText, WORD_MEMO_LIMIT } from "./nlp.ts";
import { clearModelWordMemos } from "./wink-instance.ts";

function fixtureLines(name: string): string[] {
  const f = JSON.parse(
    readFileSync(new URL(`../../../test/fixtures/analysis/${name}.json`, import.meta.url), "utf8"),
  ) as { subtitles?: Array<{ text: string }>; transcript?: string | Array<{ text: string }> };
  const t = f.subtitles ?? f.transcript ?? "";
  return typeof t === "string" ? t.split("\n") : t.map((s) => s.text);
}

/** The scan as a list of lexeme facts, independent of lexeme numbering. */
const facts = (s: LexicalScan) =>
  Array.from(s.lexeme, (k) => {
    const l = s.lexemes[k];
    return l ? `${l.value}|${l.normal}|${l.kind}|${l.newline}|${l.stop}|${l.content}` : "?";
  });

describe("scanLexemes", () => {
  const texts: Record<string, string> = {
    fixtures: ["coffee-review", "iceland-vlog", "mindset-podcast", "photosynthesis-lecture", "multilingual"]
      .flatMap(fixtureLines)
      .join("\n"),
    talk: makeTopicTalk({ topics: ["coffee", "hiking", "finance", "gardening"] })
      .segments.map((s) => s.text)
      .join("\n"),
    awkward:
      "We can't, won't and shouldn't; it's Dr. Smith's U.S.A. trip!\n\n\tTabs\there\r\nCRLF  double  spaces\u00a0nbsp " +
      'e-mail me@example.com at 10:30am, #tag @you :-) 😀 café naïve 東京タワー へ 行きました。 ...and (quoted) "words".\n' +
      "let's go. It's been... he'd've 1st 2nd 3.5% $20 ",
  };
  for (const [name, text] of Object.entries(texts)) {
    it(`gives wink's token sequence for the whole text (${name})`, () => {
      expect(facts(scanLexemes(text))).toEqual(facts(scanWhole(text)));
    });
  }

  it("gives the same lexemes with a cold, warm and overflowing lexeme memo", () => {
    const text = `${texts.awkward}\n${texts.talk}`;
    clearModelWordMemos();
    const cold = facts(scanLexemes(text));
    expect(facts(scanLexemes(text))).toEqual(cold);
    // More of the model's own words than the memo keeps (unknown words are never memoised).
    const core = (model.core as unknown as () => { features: { lexeme: { list: string[] } } })();
    const many = core.features.lexeme.list.slice(1000, 2000 + WORD_MEMO_LIMIT).join(" ");
    scanLexemes(many);
    expect(facts(scanLexemes(text))).toEqual(cold);
    expect(facts(scanLexemes(text))).toEqual(facts(scanWhole(text)));
  });

  it("separates lines with newline lexemes", () => {
    const scan = scanLexemes("one two\nthree\n\nfour");
    const newlines = Array.from(scan.lexeme).filter((k) => scan.lexemes[k]?.newline).length;
    expect(newlines).toBe(2);
    expect(scanLexemes("   ").size).toBe(0);
  });
});

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
