import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import model from "wink-eng-lite-web-model";
import { makeTopicTalk } from "../../../test/fixtures/analysis/topics.ts";
import { parseText, WORD_MEMO_LIMIT } from "./nlp.ts";
import { clearModelWordMemos } from "./wink-instance.ts";
import { scanWords, type WordScan } from "./word-scan.ts";

function fixtureLines(name: string): string[] {
  const f = JSON.parse(
    readFileSync(new URL(`../../../test/fixtures/analysis/${name}.json`, import.meta.url), "utf8"),
  ) as { subtitles?: Array<{ text: string }>; transcript?: string | Array<{ text: string }> };
  const t = f.subtitles ?? f.transcript ?? "";
  return typeof t === "string" ? t.split("\n") : t.map((s) => s.text);
}

/** Each line's tokens as `value/kind[/stop][/content]`. */
function lines(scan: WordScan): string[][] {
  const out: string[][] = [];
  for (let l = 0; l + 1 < scan.lineStart.length; l++) {
    const tokens: string[] = [];
    for (let k = scan.lineStart[l] as number; k < (scan.lineStart[l + 1] as number); k++) {
      const lx = scan.lexemes[scan.lexeme[k] as number];
      if (!lx) throw new Error("lexeme index out of range");
      tokens.push(`${lx.value}/${lx.kind}${lx.stop ? "/stop" : ""}${lx.content ? "/content" : ""}`);
    }
    out.push(tokens);
  }
  return out;
}

describe("scanWords", () => {
  it("cuts words, numbers and marks at ICU word boundaries, line by line", () => {
    const scan = scanWords([
      "The grinder, 3,400,000 beans!",
      "",
      "  \t ",
      "Ahab's ship\u00a0sails 2nd.",
      "東京タワーへ行きました。",
    ]);
    expect(lines(scan)).toEqual([
      [
        "The/word/stop",
        "grinder/word/content",
        ",/punctuation",
        "3,400,000/number",
        "beans/word/content",
        "!/punctuation",
      ],
      [],
      [],
      ["Ahab's/word/content", "ship/word/content", "sails/word/content", "2nd/number", "./punctuation"],
      expect.arrayContaining(["東京タワー/word/content", "行き/word/content", "。/punctuation"]),
    ]);
    expect(scan.lineStart.length).toBe(6);
  });

  it("repeats one lexeme for every occurrence of a word", () => {
    const scan = scanWords(["coffee coffee", "coffee, coffee"]);
    const ids = Array.from(scan.lexeme, (k) => scan.lexemes[k]?.value);
    expect(ids).toEqual(["coffee", "coffee", "coffee", ",", "coffee"]);
    expect(new Set(scan.lexeme).size).toBe(2);
  });

  it("flags stop words as wink's English model does", () => {
    const text = ["coffee-review", "iceland-vlog", "mindset-podcast", "photosynthesis-lecture"]
      .flatMap(fixtureLines)
      .join("\n");
    const parsed = parseText(text, { pos: false, sentences: false, lemmas: false });
    const winkStop = new Map<string, boolean>();
    for (let i = 0; i < parsed.size; i++) {
      if (parsed.kind[i] === "word" && !parsed.value[i]?.includes("'")) {
        winkStop.set(parsed.value[i] as string, parsed.stop[i] === 1);
      }
    }
    const scan = scanWords(text.split("\n"));
    let compared = 0;
    for (const lx of scan.lexemes) {
      const expected = winkStop.get(lx.value);
      if (lx.kind !== "word" || expected === undefined) continue;
      expect(lx.stop, lx.value).toBe(expected);
      compared++;
    }
    expect(compared).toBeGreaterThan(300);
  });

  it("gives the same scan cold, warm, past the memo's bound and after unrelated text", () => {
    const talk = makeTopicTalk({ topics: ["coffee", "hiking", "finance", "gardening"] }).segments.map(
      (s) => s.text,
    );
    clearModelWordMemos();
    const cold = lines(scanWords(talk));
    expect(lines(scanWords(talk))).toEqual(cold);
    scanWords(["(Ahab's) Pequod, Queequeg's harpoon; grinder's"]);
    expect(lines(scanWords(talk))).toEqual(cold);
    // More of the model's own words than the lexeme memo keeps.
    const core = (model.core as unknown as () => { features: { lexeme: { list: string[] } } })();
    scanWords(core.features.lexeme.list.slice(1000, 2000 + WORD_MEMO_LIMIT));
    expect(lines(scanWords(talk))).toEqual(cold);
  });
});
