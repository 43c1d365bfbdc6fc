import { asc, count, eq } from "drizzle-orm";
import type { Plan } from "../../domain/quota/daily-quota.ts";
import { newId } from "../../ids.ts";
import type { Db } from "../client.ts";
import { users } from "../schema/users.ts";

/** A user row as the domain sees it. */
export type UserRow = typeof users.$inferSelect;

/** Inserts a user; throws the driver's unique-violation error for a taken email. */
export async function insertUser(
  db: Db,
  input: { email: string; name: string; plan: Plan; imageModel?: string | null },
): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({
      id: newId("usr"),
      email: input.email,
      name: input.name,
      plan: input.plan,
      imageModel: input.imageModel ?? null,
    })
    .returning();
  return row as UserRow;
}

/** All users, oldest first (CLI listing). */
export function listUsers(db: Db): Promise<UserRow[]> {
  return db.select().from(users).orderBy(asc(users.id));
}

/** One user by id or email, or null. */
export async function findUser(db: Db, idOrEmail: string): Promise<UserRow | null> {
  const col = idOrEmail.startsWith("usr_") ? users.id : users.email;
  const [row] = await db.select().from(users).where(eq(col, idOrEmail)).limit(1);
  return row ?? null;
}

/** Sets a user's plan; returns the updated row or null when the user does not exist. */
export async function updateUserPlan(db: Db, userId: string, plan: Plan): Promise<UserRow | null> {
  const [row] = await db.update(users).set({ plan }).where(eq(users.id, userId)).returning();
  return row ?? null;
}

/** Number of users (0 on a fresh database). */
export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

/** Sets (or clears, with null) a user's image-model preference; returns the updated row or null. */
export async function updateUserImageModel(
  db: Db,
  userId: string,
  imageModel: string | null,
): Promise<UserRow | null> {
  const [row] = await db.update(users).set({ imageModel }).where(eq(users.id, userId)).returning();
  return row ?? null;
}
