import { Type } from "typebox";
import { CompositionSchema, CompositionWriteSchema } from "../../domain/composition/schema.ts";

/** A small valid composition used as the OpenAPI example. */
export const COMPOSITION_EXAMPLE = {
  name: "Launch teaser",
  canvas: { width: 1280, height: 720, fps: 30, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [
        { start: 0, duration: 3, asset: { type: "color", color: "#1d3557" } },
        {
          start: 0.5,
          duration: 2,
          asset: {
            type: "text",
            text: "Hello, Cutroom",
            style: { family: "Sans", size: 64, color: "#ffffff" },
          },
        },
      ],
    },
  ],
};

/** A template: `{{placeholders}}` filled by a render's `merge` values (docs/composition.md, Templates). */
export const TEMPLATE_EXAMPLE = {
  name: "Personal greeting",
  canvas: { width: 1280, height: 720, fps: 30, background: "#000000" },
  tracks: [
    {
      kind: "video",
      clips: [{ start: 0, duration: 4, asset: { type: "video", src: "{{video}}" } }],
    },
    {
      kind: "video",
      clips: [
        {
          start: 0.5,
          duration: 3,
          asset: {
            type: "text",
            text: "Hello, {{firstName}}",
            style: { family: "Sans", size: 64, color: "{{brand}}" },
          },
        },
      ],
    },
  ],
};

/** Response body: the stored composition. */
export const CompositionResponse = Type.Object(CompositionSchema.properties, {
  title: "Composition",
  additionalProperties: false,
});

/** Request body of POST and PUT. */
export const CompositionWriteBody = Type.Object(CompositionWriteSchema.properties, {
  title: "CompositionWrite",
  additionalProperties: false,
  examples: [COMPOSITION_EXAMPLE, TEMPLATE_EXAMPLE],
});

/** `:id` path parameter. */
export const CompositionParams = Type.Object({
  id: Type.String({ maxLength: 64, examples: ["cmp_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
});

/** One RFC 6902 operation. */
export const JsonPatchOperation = Type.Object(
  {
    op: Type.Union(["add", "remove", "replace", "move", "copy", "test"].map((o) => Type.Literal(o))),
    path: Type.String({ description: "JSON Pointer into the composition resource" }),
    value: Type.Optional(Type.Unknown()),
    from: Type.Optional(Type.String()),
  },
  { title: "JsonPatchOperation" },
);
