// The studio's undo and redo on composition versions (console/src/history.ts): which version an
// undo reverts to, what redo takes back, and when the pointer is dropped.
import { describe, expect, it } from "vitest";
import type { Composition, CompositionVersion } from "../../clients/typescript/src/types.ts";
import {
  afterRedo,
  afterUndo,
  describeSummary,
  freshPointer,
  type HistoryPointer,
  knownNames,
  type LoadedVersions,
  parsePointer,
  pointerFor,
  redoStep,
  relativeTime,
  timecode,
  undoStep,
} from "../../console/src/history.ts";

type V = LoadedVersions["versions"][number];

const edit = (version: number, summary = `edit ${version}`): V => ({
  version,
  author: { kind: "console" },
  summary,
});
const revert = (version: number, to: number): V => ({
  version,
  author: { kind: "revert" },
  summary: `reverted to version ${to}`,
});

/** A history as the server keeps it, newest first, and the reverts undo and redo write into it. */
function server(initial: V[]) {
  const versions = [...initial].sort((a, b) => b.version - a.version);
  return {
    versions,
    get current() {
      return versions[0]?.version ?? 0;
    },
    loaded: (): LoadedVersions => ({ versions, complete: true }),
    revert(to: number) {
      versions.unshift(revert(this.current + 1, to));
      return this.current;
    },
    edit(summary?: string) {
      versions.unshift(edit(this.current + 1, summary));
      return this.current;
    },
  };
}

function undo(s: ReturnType<typeof server>, p: HistoryPointer) {
  const step = undoStep(p, s.loaded());
  if (!step) return null;
  return { step, pointer: afterUndo(p, step, s.revert(step.target)) };
}

function redo(s: ReturnType<typeof server>, p: HistoryPointer) {
  const step = redoStep(p);
  if (!step) return null;
  return { step, pointer: afterRedo(p, s.revert(step.to)) };
}

describe("undo and redo on versions", () => {
  it("undoes the newest version first, whoever wrote it, then the ones before", () => {
    const s = server([edit(1, "created"), edit(2), { ...edit(3), author: { kind: "assistant" } }]);
    const u1 = undo(s, freshPointer(s.current));
    expect(u1?.step).toEqual({ target: 2, undone: 3 });
    expect(u1?.pointer).toEqual({ at: 4, position: 2, redo: [{ to: 3, undone: 3 }] });
    const u2 = undo(s, pointerFor(u1?.pointer ?? null, s.current));
    expect(u2?.step).toEqual({ target: 1, undone: 2 });
    // Version 1 is the oldest: nothing is left to undo.
    expect(undoStep(u2?.pointer as HistoryPointer, s.loaded())).toBeNull();
  });

  it("redo takes back each undo in turn, and undo after redo undoes the redone change", () => {
    const s = server([edit(1), edit(2), edit(3)]);
    const u1 = undo(s, freshPointer(3));
    const u2 = undo(s, u1?.pointer as HistoryPointer);
    expect(u2?.pointer.position).toBe(1);
    const r1 = redo(s, u2?.pointer as HistoryPointer);
    expect(r1?.step).toEqual({ to: 2, undone: 2 });
    expect(r1?.pointer).toEqual({ at: 6, position: 2, redo: [{ to: 3, undone: 3 }] });
    const r2 = redo(s, r1?.pointer as HistoryPointer);
    expect(r2?.step.to).toBe(3);
    expect(redoStep(r2?.pointer as HistoryPointer)).toBeNull();
    // The document is version 3's again: undo undoes 3, not the redo revert that wrote it.
    expect(undoStep(r2?.pointer as HistoryPointer, s.loaded())).toEqual({ target: 2, undone: 3 });
  });

  it("a new write after an undo (here or anywhere) clears the redo path", () => {
    const s = server([edit(1), edit(2), edit(3)]);
    const u1 = undo(s, freshPointer(3));
    expect(redoStep(pointerFor(u1?.pointer ?? null, s.current))).not.toBeNull();
    s.edit("moved clip a to 3 s");
    const p = pointerFor(u1?.pointer ?? null, s.current);
    expect(p).toEqual(freshPointer(5));
    expect(redoStep(p)).toBeNull();
    // Undo now undoes the new write, then goes on from what the undo had left (version 2):
    // the undone version 3 does not come back.
    const a = undo(s, p);
    expect(a?.step).toEqual({ target: 4, undone: 5 });
    expect(undoStep(a?.pointer as HistoryPointer, s.loaded())).toEqual({ target: 1, undone: 2 });
  });

  it("undoes a revert made elsewhere when it is the newest version", () => {
    const s = server([edit(1), edit(2), edit(3), revert(4, 1)]);
    expect(undoStep(freshPointer(4), s.loaded())).toEqual({ target: 3, undone: 4 });
  });

  it("skips pruned versions, and guesses the one before when the list is not loaded that far", () => {
    const pruned: LoadedVersions = { versions: [edit(9), edit(7), edit(3)], complete: true };
    expect(undoStep(freshPointer(9), pruned)).toEqual({ target: 7, undone: 9 });
    expect(undoStep({ at: 12, position: 3, redo: [] }, pruned)).toBeNull();
    const partial: LoadedVersions = { versions: [edit(40), edit(39)], complete: false };
    expect(undoStep({ at: 41, position: 39, redo: [] }, partial)).toEqual({ target: 38, undone: 39 });
  });

  it("keeps a stored pointer only while the composition is at the version it was written for", () => {
    const stored = { at: 8, position: 5, redo: [{ to: 6, undone: 6 }] };
    expect(pointerFor(stored, 8)).toBe(stored);
    expect(pointerFor(stored, 9)).toEqual(freshPointer(9));
    expect(pointerFor(null, 2)).toEqual(freshPointer(2));
  });

  it("reads a stored pointer back, and nothing from a malformed one", () => {
    const p = { at: 8, position: 5, redo: [{ to: 6, undone: 6 }] };
    expect(parsePointer(JSON.stringify(p))).toEqual(p);
    for (const bad of [
      null,
      "",
      "{",
      "[]",
      '{"at":0,"position":1,"redo":[]}',
      '{"at":2,"position":1,"redo":[{"to":"x"}]}',
    ])
      expect(parsePointer(bad)).toBeNull();
  });
});

describe("version summaries in words", () => {
  const comp = {
    tracks: [
      {
        id: "trk_v",
        name: "Main",
        kind: "video",
        clips: [{ id: "clp_a", start: 0, duration: 4, asset: { type: "video", uploadId: "upl_1" } }],
      },
    ],
  } as unknown as Composition;
  const removed = {
    version: 2,
    patch: [
      { op: "add", path: "/tracks/0/clips/1", value: { id: "clp_b", asset: { type: "text", text: "Hi" } } },
    ],
  } as unknown as CompositionVersion;

  it("names clips and tracks and writes times as m:ss", () => {
    const names = knownNames(comp, [removed], (c) =>
      c.asset.type === "text" ? c.asset.text : "cockatoo.mp4",
    );
    expect(names.get("clp_a")).toBe("cockatoo.mp4");
    expect(names.get("clp_b")).toBe("Hi");
    expect(describeSummary("moved clip clp_a to 12 s", names)).toBe("moved clip cockatoo.mp4 to 0:12");
    expect(describeSummary("removed clip clp_b", names)).toBe("removed clip Hi");
    expect(describeSummary("changed track trk_v", names)).toBe("changed track Main");
    expect(describeSummary("added clip clp_z at 75.25 s", names)).toBe("added clip clp_z at 1:15.3");
    expect(describeSummary("3 changes to tracks", names)).toBe("3 changes to tracks");
  });

  it("formats times and ages", () => {
    expect(timecode(0)).toBe("0:00");
    expect(timecode(612.5)).toBe("10:12.5");
    const now = new Date("2026-01-01T12:00:00Z");
    expect(relativeTime("2026-01-01T11:59:50Z", now)).toBe("just now");
    expect(relativeTime("2026-01-01T11:55:00Z", now)).toBe("5 min ago");
    expect(relativeTime("2026-01-01T09:00:00Z", now)).toBe("3 h ago");
    expect(relativeTime("2025-12-30T12:00:00Z", now)).toBe("2 d ago");
  });
});
