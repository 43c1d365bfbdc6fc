import { describe, expect, it } from "vitest";
import type { AppError } from "../../errors.ts";
import { fillTemplate, templatePlaceholders } from "./template.ts";

const doc = () => ({
  name: "{{notAPlaceholder}}",
  canvas: { width: 16, height: 16, fps: 25, background: "{{ bg }}" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 0, duration: 1, asset: { type: "video", src: "https://cdn.test/{{file}}.mp4?v={{file}}" } },
        {
          start: 1,
          duration: 1,
          asset: {
            type: "text",
            text: "{{a}} and {{a}}, {{b}}",
            style: {
              family: "sans",
              size: 10,
              stroke: { color: "{{bg}}", width: 1 },
              background: { color: "#000000" },
            },
          },
        },
      ],
      metadata: { note: "{{ignored}}" },
    },
  ],
});

const fail = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err as AppError;
  }
  throw new Error("did not throw");
};

describe("composition templates", () => {
  it("finds placeholders only in text, cue text, src and colours, with where each is used", () => {
    expect(Object.fromEntries(templatePlaceholders(doc()))).toEqual({
      bg: ["/canvas/background", "/tracks/0/clips/1/asset/style/stroke/color"],
      file: ["/tracks/0/clips/0/asset/src"],
      a: ["/tracks/0/clips/1/asset/text"],
      b: ["/tracks/0/clips/1/asset/text"],
    });
    expect(templatePlaceholders({ tracks: "nope" }).size).toBe(0);
    expect(templatePlaceholders(null).size).toBe(0);
  });

  it("fills every occurrence once, numbers as JSON writes them, without changing the input", () => {
    const input = doc();
    const filled = fillTemplate(input, { bg: "#112233", file: "ada", a: "{{b}}", b: 2.5 }, "");
    expect(filled.canvas.background).toBe("#112233");
    expect(filled.tracks[0]?.clips[0]?.asset).toMatchObject({ src: "https://cdn.test/ada.mp4?v=ada" });
    // A value is inserted as is, never searched for placeholders itself.
    expect(filled.tracks[0]?.clips[1]?.asset).toMatchObject({ text: "{{b}} and {{b}}, 2.5" });
    expect(filled.name).toBe("{{notAPlaceholder}}");
    expect(input.canvas.background).toBe("{{ bg }}");
  });

  it("lists missing and unknown names, with the request's prefix", () => {
    const err = fail(() => fillTemplate(doc(), { bg: "#000000", a: "x", b: "y", extra: 1 }, "/composition"));
    expect(err.code).toBe("invalid_request");
    expect(err.details).toEqual([
      {
        path: "/merge",
        message: 'no value for placeholder "file" (used at /composition/tracks/0/clips/0/asset/src)',
      },
      { path: "/merge/extra", message: 'the composition has no placeholder "extra"' },
    ]);
    const none = fail(() => fillTemplate(doc(), undefined, ""));
    expect(none.message).toBe('The composition is a template: send merge values for "bg", "file", "a", "b"');
    expect(none.details).toHaveLength(4);
  });

  it("a colour or src that is still a placeholder after merging is refused", () => {
    const err = fail(() => fillTemplate(doc(), { bg: "{{x}}", file: "f", a: "", b: "" }, ""));
    expect(err.details?.map((d) => d.path)).toEqual([
      "/canvas/background",
      "/tracks/0/clips/1/asset/style/stroke/color",
    ]);
  });

  it("a composition without placeholders is returned as is, and merge must then be empty", () => {
    const plain = { canvas: { background: "#000000" }, tracks: [] };
    expect(fillTemplate(plain, undefined, "")).toBe(plain);
    expect(fillTemplate(plain, {}, "")).toBe(plain);
    expect(fail(() => fillTemplate(plain, { a: "x" }, "")).details).toEqual([
      { path: "/merge/a", message: 'the composition has no placeholder "a"' },
    ]);
  });

  it("a whole-placeholder media src takes an upload id, a URL of this server's upload, or an https URL", () => {
    const media = (src: string) => ({
      canvas: { width: 16, height: 16, fps: 25, background: "{{bg}}" },
      tracks: [{ kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "video", src } }] }],
    });
    const assetOf = (filled: ReturnType<typeof media>) => filled.tracks[0]?.clips[0]?.asset;
    const own = new Map([
      [
        "http://api.test/files/uploads/upl_01ABCDEFGHJKMNPQRSTVWXYZ00/original?sig=x",
        "uploads/upl_01ABCDEFGHJKMNPQRSTVWXYZ00/original",
      ],
      ["http://api.test/files/renders/rnd_1/output.mp4", "renders/rnd_1/output.mp4"],
    ]);
    const fill = (video: string) => fillTemplate(media("{{video}}"), { video, bg: "#000000" }, "", own);
    expect(assetOf(fill("upl_01ABCDEFGHJKMNPQRSTVWXYZ00"))).toEqual({
      type: "video",
      uploadId: "upl_01ABCDEFGHJKMNPQRSTVWXYZ00",
    });
    expect(assetOf(fill([...own.keys()][0] as string))).toEqual({
      type: "video",
      uploadId: "upl_01ABCDEFGHJKMNPQRSTVWXYZ00",
    });
    expect(assetOf(fill("https://cdn.test/a.mp4"))).toEqual({ type: "video", src: "https://cdn.test/a.mp4" });
    expect(fail(() => fill("http://api.test/files/renders/rnd_1/output.mp4")).details).toEqual([
      { path: "/merge/video", message: "is a URL of this server, but not of an upload" },
    ]);
    for (const bad of ["http://cdn.test/a.mp4", "upl_", "a.mp4", ""]) {
      expect(fail(() => fill(bad)).details, bad).toEqual([
        { path: "/merge/video", message: "must be an upload id or an https URL" },
      ]);
    }
    // A colour placeholder takes a colour; an https URL with placeholders inside stays a src.
    expect(
      fail(() => fillTemplate(media("{{video}}"), { video: "https://x.test/a", bg: "black" }, "")).details,
    ).toEqual([{ path: "/merge/bg", message: "must be a colour: #rrggbb or #rrggbbaa" }]);
    const partial = fillTemplate(
      media("https://cdn.test/{{video}}.mp4"),
      { video: "upl_01ABCDEFGHJKMNPQRSTVWXYZ00", bg: "#000000" },
      "",
    );
    expect(assetOf(partial)).toEqual({
      type: "video",
      src: "https://cdn.test/upl_01ABCDEFGHJKMNPQRSTVWXYZ00.mp4",
    });
  });
});
