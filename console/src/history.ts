import type { Composition, CompositionVersion } from "../../clients/typescript/src/types.ts";

/**
 * Undo and redo on the server's composition versions. Undo reverts the composition to the
 * version before the change it undoes (`POST …/revert`, a new version); redo reverts to the
 * version that undo left. A small pointer, kept per browser tab, remembers where in the history
 * the editor stands and what can be redone; it holds only while the composition is still at the
 * version the last undo or redo wrote, so any other write (this editor, the assistant, another
 * tab, the API) starts afresh from the newest version and clears the redo path.
 */

/** One step that redo takes back: revert to `to`, redoing the change of version `undone`. */
export interface RedoEntry {
  to: number;
  undone: number;
}

/**
 * Where undo stands: `at` is the composition version the last undo or redo wrote, `position`
 * the version whose document that is (equal to `at` when nothing was undone), `redo` the steps
 * redo takes back, the next one last.
 */
export interface HistoryPointer {
  at: number;
  position: number;
  redo: RedoEntry[];
}

/** What one undo does: revert to version `target`, undoing the change of version `undone`. */
export interface UndoStep {
  target: number;
  undone: number;
}

/** The version list as far as it is loaded (newest first) and whether it reaches the oldest one. */
export interface LoadedVersions {
  versions: readonly Pick<CompositionVersion, "version" | "author" | "summary">[];
  complete: boolean;
}

/** The pointer of a composition at version `current` that nothing was undone in. */
export function freshPointer(current: number): HistoryPointer {
  return { at: current, position: current, redo: [] };
}

/**
 * The pointer that holds for a composition at version `current`: `stored` when the composition
 * is still at the version it was written for, else a fresh one (someone wrote since: undo starts
 * from the newest version and there is nothing to redo).
 */
export function pointerFor(stored: HistoryPointer | null, current: number): HistoryPointer {
  return stored && stored.at === current ? stored : freshPointer(current);
}

/** The version a revert version returned to ("reverted to version 3"), else null. */
export function revertedTo(v: Pick<CompositionVersion, "author" | "summary"> | undefined): number | null {
  if (v?.author.kind !== "revert") return null;
  const m = /^reverted to version (\d+)$/.exec(v.summary);
  return m ? Number(m[1]) : null;
}

/**
 * The version whose change a document at version `p` stands for: a revert to N stands for N (and
 * so on, when N is itself a revert), so that undo after undo goes on from where the first undo
 * left rather than undoing that undo.
 */
function standsFor(p: number, byVersion: ReadonlyMap<number, LoadedVersions["versions"][number]>): number {
  let at = p;
  for (let i = 0; i < 1000; i++) {
    const to = revertedTo(byVersion.get(at));
    if (to === null || to >= at) break;
    at = to;
  }
  return at;
}

/**
 * The next undo from `pointer`, or null when there is nothing older to go back to. From the
 * newest version (nothing undone yet) it undoes that version, whatever it is (a revert made
 * elsewhere included); after an undo it goes on with the change the shown document stands for.
 * The target is the newest stored version before the undone one (older versions may have been
 * pruned); when the loaded list does not reach that far, the version just before.
 */
export function undoStep(pointer: HistoryPointer, loaded: LoadedVersions): UndoStep | null {
  const byVersion = new Map(loaded.versions.map((v) => [v.version, v]));
  const undone = pointer.position === pointer.at ? pointer.position : standsFor(pointer.position, byVersion);
  let target: number | null = null;
  for (const v of loaded.versions)
    if (v.version < undone && (target === null || v.version > target)) target = v.version;
  if (target === null && !loaded.complete && undone > 1) target = undone - 1;
  return target === null ? null : { target, undone };
}

/** The next redo from `pointer`, or null when there is nothing to redo. */
export function redoStep(pointer: HistoryPointer): RedoEntry | null {
  return pointer.redo.at(-1) ?? null;
}

/** The pointer after `step` was undone by a revert that wrote version `written`. */
export function afterUndo(pointer: HistoryPointer, step: UndoStep, written: number): HistoryPointer {
  return {
    at: written,
    position: step.target,
    redo: [...pointer.redo, { to: pointer.position, undone: step.undone }].slice(-100),
  };
}

/** The pointer after the next redo step was redone by a revert that wrote version `written`. */
export function afterRedo(pointer: HistoryPointer, written: number): HistoryPointer {
  const step = redoStep(pointer);
  if (!step) return pointer;
  return { at: written, position: step.to, redo: pointer.redo.slice(0, -1) };
}

/** A stored pointer read back (JSON from sessionStorage), or null when it is missing or malformed. */
export function parsePointer(text: string | null): HistoryPointer | null {
  if (!text) return null;
  try {
    const p = JSON.parse(text) as Partial<HistoryPointer>;
    const isVersion = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
    if (!isVersion(p.at) || !isVersion(p.position) || !Array.isArray(p.redo)) return null;
    if (!p.redo.every((r) => isVersion(r?.to) && isVersion(r?.undone))) return null;
    return { at: p.at as number, position: p.position as number, redo: p.redo };
  } catch {
    return null;
  }
}

/** Seconds → `m:ss` with tenths when the time has them (`12.5` → `0:12.5`, `12` → `0:12`). */
export function timecode(seconds: number): string {
  const tenths = Math.round(seconds * 10);
  const whole = Math.floor(tenths / 10);
  const ss = String(whole % 60).padStart(2, "0");
  const rest = tenths % 10 ? `.${tenths % 10}` : "";
  return `${Math.floor(whole / 60)}:${ss}${rest}`;
}

/**
 * A version summary in words a person reads: clip and track ids replaced by the names in
 * `names` (id → label), times in seconds as `m:ss` ("moved clip clp_… to 12 s" → "moved clip
 * cockatoo.mp4 to 0:12").
 */
export function describeSummary(summary: string, names: ReadonlyMap<string, string>): string {
  return summary
    .replace(/\b(clip|track) (\S+)/g, (all, kind: string, id: string) => {
      const name = names.get(id);
      return name ? `${kind} ${name}` : all;
    })
    .replace(/(?<![\w.])(\d+(?:\.\d+)?) s\b/g, (_all, n: string) => timecode(Number(n)));
}

/**
 * Labels of the clips and tracks that `c` and the version patches know of (id → label, through
 * `label`): the clips of the composition now, and those added by a version (the patch values),
 * so that a removed clip is still named by what it showed.
 */
export function knownNames(
  c: Composition,
  versions: readonly Pick<CompositionVersion, "patch">[],
  label: (clip: Composition["tracks"][number]["clips"][number]) => string,
): Map<string, string> {
  type Clip = Composition["tracks"][number]["clips"][number];
  const names = new Map<string, string>();
  const visit = (value: unknown) => {
    if (!value || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    const o = value as Record<string, unknown>;
    if (typeof o.id === "string" && o.asset && typeof o.asset === "object") names.set(o.id, label(o as Clip));
    else if (typeof o.id === "string" && Array.isArray(o.clips)) {
      if (typeof o.name === "string" && o.name) names.set(o.id, o.name);
      visit(o.clips);
    } else if (Array.isArray(o.tracks)) visit(o.tracks);
  };
  for (const v of [...versions].reverse()) for (const op of v.patch) if ("value" in op) visit(op.value);
  visit(c.tracks);
  return names;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago": how long before `now` the ISO time `iso` was. */
export function relativeTime(iso: string, now: Date): string {
  const s = Math.max(0, (now.getTime() - new Date(iso).getTime()) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}
