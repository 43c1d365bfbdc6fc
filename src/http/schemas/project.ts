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
