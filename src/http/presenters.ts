import type { ProjectRow } from "../db/repositories/projects.ts";
import { effectiveImageModelId } from "../domain/generation/models.ts";

/** Project row → wire shape (docs/conventions.md, Resources). */
export function presentProject(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** API key details → wire shape; never the secret. */
export function presentApiKey(k: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt?: Date | null;
}) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

/** A user → the `User` wire shape. */
export function presentUser(u: {
  id: string;
  email: string;
  name: string;
  plan: string;
  createdAt: Date;
  imageModel: string | null;
}) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    plan: u.plan,
    createdAt: u.createdAt.toISOString(),
    settings: { imageModel: effectiveImageModelId(u.imageModel) },
  };
}
