import { describe, expect, it } from "vitest";
import type { RenderWarning } from "../render/types.ts";
import { partWarningsToAdd } from "./render-damage.ts";

const named = (clipId: string): RenderWarning => ({
  code: "SOURCE_DAMAGED",
  message: `The source of clip ${clipId} is damaged`,
  clipId,
});
const unnamed: RenderWarning = { code: "SOURCE_DAMAGED", message: "A source file is damaged" };

describe("partWarningsToAdd", () => {
  it("adds each part warning once, none the render already has", () => {
    const own: RenderWarning = { code: "SOURCE_TOO_SHORT", message: "short", clipId: "clp_a" };
    expect(partWarningsToAdd([own], [named("clp_b"), { ...own }, named("clp_b")])).toEqual([named("clp_b")]);
  });

  it("drops the clip-less damage warning when a part named the clip, keeps it otherwise", () => {
    expect(partWarningsToAdd([], [unnamed, named("clp_b")])).toEqual([named("clp_b")]);
    expect(partWarningsToAdd([], [unnamed, unnamed])).toEqual([unnamed]);
  });
});
