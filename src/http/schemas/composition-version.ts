import { Type } from "typebox";
import { CompositionParams, JsonPatchOperation } from "./composition.ts";

/** Who made a version. */
export const VersionAuthorSchema = Type.Object(
  {
    kind: Type.Union(
      ["api", "console", "assistant", "mcp", "import", "revert", "autoedit"].map((k) => Type.Literal(k)),
      {
        description:
          "`api` an API key, `console` a console session (the studio), `assistant` an assistant run, `mcp` an MCP tool call, `import` an OpenTimelineIO import, `revert` a revert, `autoedit` a step of an auto-edit job",
      },
    ),
    keyId: Type.Optional(Type.String({ description: "The API key that wrote it, when one did" })),
    runId: Type.Optional(
      Type.String({ description: "The assistant run (`run_…`) or auto-edit job (`aed_…`) that wrote it" }),
    ),
  },
  { title: "CompositionVersionAuthor", additionalProperties: false },
);

/** One version of a composition, as lists show it. */
export const CompositionVersionResponse = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    createdAt: Type.String({ format: "date-time" }),
    author: VersionAuthorSchema,
    summary: Type.String({
      description: "One line, e.g. `moved clip clp_… to 12.5 s` or `3 changes to tracks`",
    }),
    patch: Type.Array(JsonPatchOperation, {
      description:
        "RFC 6902 patch from the previous stored version (from an empty document for the oldest stored one); paths address the composition resource without its server fields (`id`, `version`, `schemaVersion`, `createdAt`, `updatedAt`)",
    }),
  },
  { title: "CompositionVersion", additionalProperties: false },
);

/** `:id/:version` path parameters. */
export const CompositionVersionParams = Type.Object({
  ...CompositionParams.properties,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, examples: [3] }),
});

/** Query of the diff route. */
export const VersionDiffQuery = Type.Object({
  from: Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    description: "The version the patch starts from",
  }),
});

/** Response of the diff route. */
export const VersionDiffResponse = Type.Object(
  {
    from: Type.Integer(),
    to: Type.Integer(),
    patch: Type.Array(JsonPatchOperation, {
      description: "RFC 6902 operations that turn version `from` into version `to` (no server fields)",
    }),
  },
  { title: "CompositionVersionDiff", additionalProperties: false },
);

/** Body of the revert route. */
export const RevertBody = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The version to go back to" }) },
  { title: "CompositionRevert", additionalProperties: false, examples: [{ version: 3 }] },
);
