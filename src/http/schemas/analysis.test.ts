import { describe, expect, it } from "vitest";
import { detectChapters, suggestBroll, summarizeClip } from "../../domain/analysis/index.ts";
import {
  BrollRequest,
  BrollResponse,
  ChaptersRequest,
  ChaptersResponse,
  SummaryRequest,
  SummaryResponse,
} from "./analysis.ts";

/** The first example of a schema (TypeBox keeps `examples` on the schema object). */
const example = (schema: object): never => (schema as { examples: unknown[] }).examples[0] as never;

describe("OpenAPI examples of the analysis endpoints", () => {
  it("show what the endpoints really answer to the example requests", () => {
    expect(detectChapters(example(ChaptersRequest))).toEqual(example(ChaptersResponse));
    expect(summarizeClip(example(SummaryRequest))).toEqual(example(SummaryResponse));
    expect(suggestBroll(example(BrollRequest))).toEqual(example(BrollResponse));
  });
});
