import { describe, expect, it } from "vitest";
import { parsePocketsphinxOutput } from "./pocketsphinx.ts";

describe("parsePocketsphinxOutput", () => {
  it("makes one segment per utterance, without fillers or pronunciation variants", () => {
    const out = [
      "go forward ten meters",
      "<s> 0.000 0.140 0.999400",
      "go 0.150 0.360 0.960057",
      "forward(2) 0.370 0.620 0.988762",
      "<sil> 0.630 0.700 0.553348",
      "[NOISE] 0.700 0.720 0.5",
      "ten 0.730 1.000 0.929128",
      "meters 1.010 1.330 1.0001",
      "</s> 1.340 1.400 1.000000",
      "he was",
      "<s> 8.990 9.090 0.999800",
      "he 9.330 9.440 0.998900",
      "was(2) 9.450 9.660 1.000000",
      "</s> 11.850 12.080 1.000000",
      "<s> 13.000 13.100 1.0",
      "</s> 13.100 13.200 1.0",
    ].join("\n");
    expect(parsePocketsphinxOutput(out)).toEqual([
      {
        start: 0.15,
        end: 1.33,
        text: "go forward ten meters",
        words: [
          { start: 0.15, end: 0.36, text: "go", confidence: 0.960057 },
          { start: 0.37, end: 0.62, text: "forward", confidence: 0.988762 },
          { start: 0.73, end: 1, text: "ten", confidence: 0.929128 },
          { start: 1.01, end: 1.33, text: "meters", confidence: 1 },
        ],
      },
      {
        start: 9.33,
        end: 9.66,
        text: "he was",
        words: [
          { start: 9.33, end: 9.44, text: "he", confidence: 0.9989 },
          { start: 9.45, end: 9.66, text: "was", confidence: 1 },
        ],
      },
    ]);
  });
});
