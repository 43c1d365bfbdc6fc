import { Type } from "typebox";
import { Timestamp } from "./common.ts";

/** Project resource (docs/conventions.md, Resources). */
export const Project = Type.Object(
  {
    id: Type.String({ examples: ["prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    name: Type.String(),
    description: Type.String(),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: "Project" },
);

/** `POST /api/v1/projects` body. */
export const ProjectCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, examples: ["Launch video"] }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  {
    title: "ProjectCreate",
    additionalProperties: false,
    examples: [{ name: "Launch video", description: "Teaser and cut-downs for the spring launch" }],
  },
);

/** `PATCH /api/v1/projects/{projectId}` body: the fields to change. */
export const ProjectUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, examples: ["Launch video (final)"] })),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  {
    title: "ProjectUpdate",
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: "Launch video (final)", description: "The cut approved on Friday" }],
  },
);

/** What `DELETE /api/v1/projects/{projectId}` does with the project's contents. */
export const ProjectDeleteQuery = Type.Object({
  contents: Type.Optional(
    Type.Union([Type.Literal("delete"), Type.Literal("keep")], {
      description:
        "`delete`: delete the project's uploads (and their files), compositions, assistant sessions and finished generations with it. `keep`: keep them in the account, outside any project. Required when the project is not empty.",
    }),
  ),
});
