import { describe, expect, it } from "vitest";
import type { AppError } from "../../errors.ts";
import { parseOtioJson } from "./otio-json.ts";

describe("OpenTimelineIO JSON", () => {
  it("reads Inf, -Infinity, NaN and integers beyond 2^53 as strings, leaving the rest as JSON reads it", () => {
    const doc = parseOtioJson(
      '{"a": Inf, "b": -Infinity, "c": NaN, "d": -Inf, "big": 170141183460469231731687303715884105728,' +
        ' "neg": -9007199254740993, "max": 9007199254740991, "f": 1.5e3, "s": "Inf NaN 99999999999999999", "e": "\\"NaN\\""}',
    );
    expect(doc).toEqual({
      a: "Inf",
      b: "-Infinity",
      c: "NaN",
      d: "-Inf",
      big: "170141183460469231731687303715884105728",
      neg: "-9007199254740993",
      max: 9007199254740991,
      f: 1500,
      s: "Inf NaN 99999999999999999",
      e: '"NaN"',
    });
  });

  it("refuses what is not JSON and prototype keys with a 400", () => {
    for (const text of ["{", '{"a": Infinite}', '{"__proto__": {"x": 1}}']) {
      let error: AppError | undefined;
      try {
        parseOtioJson(text);
      } catch (e) {
        error = e as AppError;
      }
      expect(error?.status, text).toBe(400);
    }
  });
});
