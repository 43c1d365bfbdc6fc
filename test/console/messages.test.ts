import { describe, expect, it } from "vitest";
import { deleteUploadPrompt, refusedEdit } from "../../console/src/messages.ts";

describe("console messages", () => {
  it("shows a refused edit in the server's words and points at the clip of the first detail", () => {
    const refused = refusedEdit("Move clip", {
      error: {
        code: "invalid_request",
        message:
          "Composition is invalid: cockatoo.mp4 at 0:06 overlaps intro.mp4 at 0:00 on the same track (which ends at 7 s)",
        details: [{ path: "/tracks/1/clips/3/start", message: "…", clipId: "clp_a" }],
      },
    });
    expect(refused.text).toBe(
      "Move clip: cockatoo.mp4 at 0:06 overlaps intro.mp4 at 0:00 on the same track (which ends at 7 s)",
    );
    expect(refused.clip).toEqual({ track: 1, index: 3, id: "clp_a", transition: false });
    const transition = refusedEdit("Add transition", {
      error: {
        message:
          "Composition is invalid: parrot.mp4 at 0:04, transition duration: must not exceed the 0.49 s gap before the clip",
        details: [
          {
            path: "/tracks/0/clips/2/transition/duration",
            message: "must not exceed the 0.49 s gap before the clip",
          },
        ],
      },
    });
    expect(transition.text).toBe(
      "Add transition: parrot.mp4 at 0:04, transition duration: must not exceed the 0.49 s gap before the clip",
    );
    expect(transition.clip).toEqual({ track: 0, index: 2, id: null, transition: true });
  });

  it("falls back to the first detail, then to a generic sentence; a path elsewhere points at no clip", () => {
    const bare = refusedEdit("Rename", {
      error: {
        message: "Composition is invalid",
        details: [{ path: "/canvas/fps", message: "must be one of 24, 25" }],
      },
    });
    expect(bare).toEqual({ text: "Rename: canvas fps must be one of 24, 25", clip: null });
    expect(refusedEdit("Rename", undefined).text).toBe("Rename: the server refused it; try again.");
    expect(refusedEdit("Trim", { error: { message: "Rate limited" } }).text).toBe("Trim: Rate limited");
  });

  it("names the compositions that use an upload in the delete confirm", () => {
    expect(deleteUploadPrompt("a.mp4", [])).toBe("Delete “a.mp4”? This cannot be undone.");
    expect(
      deleteUploadPrompt("cockatoo.mp4", [
        { id: "cmp_1", name: "Birds", clips: 2 },
        { id: "cmp_2", name: "Reel", clips: 1 },
      ]),
    ).toMatch(
      /^Delete “cockatoo\.mp4”\? It is used by “Birds” \(2 clips\) and “Reel” \(1 clip\)\. Those clips will be marked missing/,
    );
  });
});
