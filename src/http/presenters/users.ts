import { effectiveImageModelId } from "../../domain/generation/models.ts";

/** A user → the `User` wire shape (`createdAt` ISO 8601; the image model in effect under `settings`). */
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
