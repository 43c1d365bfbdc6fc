import type { Db } from "../../db/client.ts";
import { insertSession, type SessionRow } from "../../db/repositories/assistant.ts";
import { findComposition } from "../../db/repositories/compositions.ts";
import { findProject } from "../../db/repositories/projects.ts";
import type { AssistantModelInfo } from "../../db/schema/assistant.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { createComposition } from "../composition/edit-composition.ts";

/** The canvas of a composition a session creates: 1920×1080 at 30 fps on black. */
export const NEW_SESSION_CANVAS = { width: 1920, height: 1080, fps: 30, background: "#000000" } as const;

/**
 * Opens a session on a composition of the caller. With `compositionId` the session edits that
 * composition (its project is the session's; a different `projectId` is a 400). Without it a
 * new, empty 1920×1080 30 fps composition is created — in `projectId` when given, else outside
 * any project (tools then see all the caller's uploads). Both rows are written in one
 * transaction.
 * @throws 404 for an unknown or foreign project or composition.
 */
export async function openSession(
  ctx: { db: Db; userId: string; now: Date },
  input: { projectId?: string | undefined; compositionId?: string | undefined; model: AssistantModelInfo },
): Promise<SessionRow> {
  return ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    let projectId = input.projectId ?? null;
    let compositionId: string;
    if (input.compositionId) {
      const c = await findComposition(db, ctx.userId, input.compositionId);
      if (!c) throw notFound(`Composition ${input.compositionId}`);
      if (input.projectId && c.projectId !== input.projectId) {
        throw invalidRequest("The composition is not in this project", [
          { path: "/projectId", message: `composition ${c.id} belongs to ${c.projectId ?? "no project"}` },
        ]);
      }
      projectId = c.projectId;
      compositionId = c.id;
    } else {
      if (projectId && !(await findProject(db, ctx.userId, projectId)))
        throw notFound(`Project ${projectId}`);
      const created = await createComposition(
        { db, userId: ctx.userId, now: ctx.now },
        {
          name: `Assistant edit ${ctx.now.toISOString().slice(0, 16).replace("T", " ")}`,
          projectId,
          canvas: { ...NEW_SESSION_CANVAS },
          tracks: [],
        },
      );
      compositionId = created.id;
    }
    return insertSession(db, { userId: ctx.userId, projectId, compositionId, model: input.model });
  });
}
