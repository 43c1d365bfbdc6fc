import { describe, expect, it } from "vitest";
import { inOrder, type Phrase, selectDistinct } from "./key-phrases.ts";

describe("inOrder", () => {
  it("yields what a stable sort gives, ties in input order", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const n of [0, 1, 2, 5, 64, 1000]) {
      const keys = Array.from({ length: n }, () => Math.floor(rand() * 10));
      const items = keys.map((k, i) => ({ k, i }));
      const compare = (a: number, b: number) => (keys[b] as number) - (keys[a] as number);
      const expected = [...items].sort((a, b) => b.k - a.k);
      expect([...inOrder(items, compare)]).toEqual(expected);
    }
  });

  it("is lazy: taking the first few leaves the rest unsorted", () => {
    let compared = 0;
    const items = Array.from({ length: 4096 }, (_, i) => (i * 7919) % 4096);
    const gen = inOrder(items, (a, b) => {
      compared++;
      return (items[a] as number) - (items[b] as number);
    });
    const first = [gen.next().value, gen.next().value, gen.next().value];
    expect(first).toEqual([0, 1, 2]);
    expect(compared).toBeLessThan(4096 * 3);
  });
});

describe("selectDistinct", () => {
  const phrase = (key: string, terms: number[]): Phrase => ({
    key,
    terms,
    display: key,
    count: 1,
    firstToken: 0,
    words: terms.length,
  });

  it("skips phrases whose terms nest with a kept one, up to the limit", () => {
    const kept = selectDistinct(
      [
        phrase("espresso machine", [1, 2]),
        phrase("espresso", [1]),
        phrase("new espresso machine", [3, 1, 2]),
        phrase("grinder", [4]),
        phrase("milk jug", [5, 6]),
        phrase("jug", [6]),
      ],
      2,
    );
    expect(kept.map((p) => p.key)).toEqual(["espresso machine", "grinder"]);
  });
});
