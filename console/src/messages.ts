/**
 * The sentences the console shows for the server's answers: a refused edit in the server's own
 * words with the clip it is about, and the confirm of deleting an upload that compositions use.
 */

/** An API error body as the server sends it (`{ error: { message, details } }`). */
interface ErrorBody {
  error?: { message?: string; details?: { path: string; message: string; clipId?: string }[] };
}

/** A refused edit: the sentence to show, and the clip the first problem is about (or null). */
export interface RefusedEdit {
  text: string;
  /** The clip by its indices in the composition as sent (`/tracks/t/clips/c/...`), or its id. */
  clip: { track: number; index: number; id: string | null; transition: boolean } | null;
}

/**
 * Words a refused edit in the server's sentence: `"<action>: <why>"`, without the generic
 * "Composition is invalid" lead-in, and points at the clip the first detail's path names.
 * @param action - what the user did ("Move clip").
 * @param error - the error body of the answer (anything else gives a generic sentence).
 */
export function refusedEdit(action: string, error: unknown): RefusedEdit {
  const body = (error ?? {}) as ErrorBody;
  const raw = body.error?.message?.trim();
  const first = body.error?.details?.[0];
  let why = raw ? raw.replace(/^Composition is invalid(: )?/, "") : "";
  if (!why && first) why = `${first.path.slice(1).replaceAll("/", " ")} ${first.message}`;
  if (!why) why = "the server refused it; try again.";
  const m = first ? /^\/tracks\/(\d+)\/clips\/(\d+)(\/transition)?(\/|$)/.exec(first.path) : null;
  return {
    text: `${action}: ${why}`,
    clip: m
      ? {
          track: Number(m[1]),
          index: Number(m[2]),
          id: first?.clipId ?? null,
          transition: m[3] !== undefined,
        }
      : null,
  };
}

/** A composition that uses an upload, as `GET /api/v1/uploads/{id}` lists it in `usedBy`. */
export interface UploadUser {
  id: string;
  name: string;
  clips: number;
}

/**
 * The confirm of deleting upload `name`: says which compositions use it and what happens to
 * their clips (marked missing until relinked or deleted).
 */
export function deleteUploadPrompt(name: string, usedBy: readonly UploadUser[]): string {
  if (usedBy.length === 0) return `Delete “${name}”? This cannot be undone.`;
  const users = usedBy.map((c) => `“${c.name}” (${c.clips} clip${c.clips === 1 ? "" : "s"})`);
  const list = users.length === 1 ? users[0] : `${users.slice(0, -1).join(", ")} and ${users.at(-1)}`;
  return `Delete “${name}”? It is used by ${list}. Those clips will be marked missing until you relink them to another upload or delete them. This cannot be undone.`;
}
