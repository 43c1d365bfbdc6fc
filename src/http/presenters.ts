import type { ProjectRow } from "../db/repositories/projects.ts";
import type { UserRow } from "../db/repositories/users.ts";

/** User row → wire shape (DESIGN §5). */
export function presentUser(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    plan: u.plan,
    createdAt: u.createdAt.toISOString(),
    settings: { imageModel: u.imageModel },
  };
}

/** Project row → wire shape (DESIGN §5). */
export function presentProject(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
