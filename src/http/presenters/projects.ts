import type { ProjectRow } from "../../db/repositories/projects.ts";

/** Project row → the `Project` wire shape (docs/conventions.md, Resources). */
export function presentProject(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
