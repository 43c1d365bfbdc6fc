import { describe, expect, it } from "vitest";
import { outputName } from "./store-outputs.ts";

const gen = (prompt: string) => ({ id: "gen_01TEST", prompt });

describe("outputName", () => {
  it("names a generation's output from its prompt, numbering several", () => {
    expect(outputName(gen("A lighthouse at dusk"), 0, 1, "png")).toBe("A lighthouse at dusk.png");
    expect(outputName(gen("A lighthouse at dusk"), 1, 4, "png")).toBe("A lighthouse at dusk (2).png");
    expect(outputName(gen("  cats\n/dogs: \\ fight?  "), 0, 1, "mp4")).toBe("cats dogs fight.mp4");
  });

  it("cuts a long prompt at a word and falls back to the id when nothing is left", () => {
    const long = `${"word ".repeat(30)}end`;
    const name = outputName(gen(long), 0, 1, "png");
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^word( word)*\.png$/);
    expect(outputName(gen(" /// ... "), 0, 1, "png")).toBe("gen_01TEST.png");
    expect(outputName(gen("x"), 0, 1, undefined)).toBe("x");
  });
});
