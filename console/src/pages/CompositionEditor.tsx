import { useCallback, useEffect, useLayoutEffect, useMemo, useState } from "react";
import {
  api,
  type Clip,
  type Composition,
  errorMessage,
  type Marker,
  type PatchOperation,
  type Transition,
  type Upload,
} from "../api/client";
import {
  type CompositionVersion,
  listCompositionVersions,
  type PatchResult,
  patchComposition,
  revertComposition,
} from "../api/compositions";
import { AddTrackButtons } from "../components/AddTrackButtons";
import { AssistantPanel, type AssistantPatch } from "../components/AssistantPanel";
import { CaptionsTool } from "../components/CaptionsTool";
import { ClipProperties } from "../components/ClipProperties";
import { CompositionSettingsForm } from "../components/CompositionSettings";
import { EditorWorkspace } from "../components/EditorWorkspace";
import { HistoryPanel } from "../components/HistoryPanel";
import { Layout, Status } from "../components/Layout";
import { MarkerProperties } from "../components/MarkerProperties";
import { MissingMedia } from "../components/MissingMedia";
import { PanelTabs } from "../components/PanelTabs";
import { PictureLayouts } from "../components/PictureLayouts";
import { Preview } from "../components/Preview";
import { RenderList } from "../components/RenderList";
import { TextStyleProperties } from "../components/TextStyleProperties";
import { TextTool } from "../components/TextTool";
import { type Selection, Timeline, UPLOAD_DRAG_TYPE } from "../components/Timeline";
import { TransitionProperties } from "../components/TransitionProperties";
import { TransitionStrip, transitionLabel } from "../components/TransitionStrip";
import { clipFor } from "../compose";
import {
  addMarkerOps,
  applyRemotePatch,
  clipEditOps,
  clipLabel,
  deleteMarkerOps,
  deleteOps,
  findClip,
  findMarker,
  markerEditOps,
  moveOps,
  shareUnchanged,
  splitOps,
  timelineEnd,
  trimOps,
} from "../edits";
import { type FieldErrors, refusedFields } from "../field-values";
import { formatDuration } from "../format";
import {
  afterRedo,
  afterUndo,
  describeSummary,
  type HistoryPointer,
  knownNames,
  parsePointer,
  pointerFor,
  redoStep,
  undoStep,
} from "../history";
import { refusedEdit } from "../messages";
import { closeGapOps, closeTrackGapsOps, insertOps, rippleDeleteOps, transitionDropOps } from "../ripple";
import { Link } from "../router";
import { SNAP_PX } from "../snap";
import { addTrackOps, type ClipDraft, dropOps, kindFor } from "../tools";

/** Where this tab keeps its undo pointer of composition `id` (survives a reload, not a new tab). */
const pointerKey = (id: string) => `cutroom.history.${id}`;

function readPointer(id: string): HistoryPointer | null {
  try {
    return parsePointer(sessionStorage.getItem(pointerKey(id)));
  } catch {
    return null;
  }
}

function savePointer(id: string, pointer: HistoryPointer): void {
  try {
    sessionStorage.setItem(pointerKey(id), JSON.stringify(pointer));
  } catch {
    // Storage refused (private mode, full): undo still works until the page is left.
  }
}

/** Where this tab keeps the editor's side panel tab. */
const SIDE_TAB_KEY = "cutroom.editor.tab";

const ZOOMS = [5, 10, 20, 40, 80, 160, 320];

/** The closest zoom (index into ZOOMS) that shows a timeline of `seconds` in the window's width. */
function fittingZoom(seconds: number): number {
  const room = Math.max(300, window.innerWidth - 180);
  let best = 0;
  for (const [i, pps] of ZOOMS.entries()) if ((seconds + 5) * pps <= room) best = i;
  return best;
}

/** The name of the upload a clip shows, if it shows one. */
function uploadName(clip: Clip, uploads: ReadonlyMap<string, Upload>): string | undefined {
  return "uploadId" in clip.asset && clip.asset.uploadId ? uploads.get(clip.asset.uploadId)?.name : undefined;
}

/** The label of the clip before the one at `r` on its track (where a transition into it comes from). */
function previousClipLabel(
  c: Composition,
  r: { track: number; clip: number },
  uploads: ReadonlyMap<string, Upload>,
): string | null {
  const before = c.tracks[r.track]?.clips[r.clip - 1];
  return before ? clipLabel(before, uploadName(before, uploads)) : null;
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return (
    !!el &&
    (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable)
  );
}

function MediaBin(props: { uploads: Upload[]; onAdd: (u: Upload) => void }) {
  return (
    <section className="card bin" aria-labelledby="bin-h">
      <h2 id="bin-h">Media</h2>
      <p className="hint">Drag onto a track, or add at the playhead.</p>
      <ul className="plain">
        {props.uploads
          .filter((u) => u.type !== "font")
          .map((u) => (
            <li
              key={u.id}
              draggable
              onDragStart={(e) => {
                e.dataTransfer.setData(UPLOAD_DRAG_TYPE, u.id);
                e.dataTransfer.effectAllowed = "copy";
              }}
            >
              {u.posterUrl || u.type === "image" ? (
                <img src={u.posterUrl ?? u.url} alt="" loading="lazy" />
              ) : (
                <span className="no-poster" />
              )}
              <span className="break">
                {u.name}
                <small>
                  {u.type}
                  {u.media?.duration ? ` · ${formatDuration(u.media.duration)}` : ""}
                </small>
              </span>
              <button
                type="button"
                className="secondary"
                onClick={() => props.onAdd(u)}
                aria-label={`Add ${u.name} at the playhead`}
              >
                Add
              </button>
            </li>
          ))}
      </ul>
    </section>
  );
}

/**
 * The composition editor: timeline, clip properties, preview rendered by the server, media bin,
 * undo and redo on the composition's versions (every change, whoever made it; see history.ts),
 * its history, keyboard shortcuts, and the composition's renders. Every change is a JSON Patch
 * with `If-Match`; a 409 reloads the composition and says so.
 */
export function CompositionEditorPage(props: { projectId: string; compositionId: string }) {
  const { projectId, compositionId } = props;
  const [comp, setShown] = useState<Composition | null>(null);
  /** Shows `next`, keeping the objects of the clips, tracks and markers it did not change. */
  const setComp = useCallback((next: Composition) => setShown((prev) => shareUnchanged(prev, next)), []);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [selection, setSelection] = useState<Selection>(() => {
    const clip = new URLSearchParams(window.location.search).get("clip");
    return clip ? { kind: "clip", id: clip } : null;
  });
  // A "show the clip" link to this page (e.g. from a failed render below) selects its clip.
  useEffect(() => {
    const onNavigate = () => {
      const clip = new URLSearchParams(window.location.search).get("clip");
      if (clip) setSelection({ kind: "clip", id: clip });
    };
    window.addEventListener("popstate", onNavigate);
    return () => window.removeEventListener("popstate", onNavigate);
  }, []);
  const [playhead, setPlayhead] = useState(0);
  const [zoom, setZoom] = useState(2);
  const [versions, setVersions] = useState<{ versions: CompositionVersion[]; complete: boolean } | null>(
    null,
  );
  const [stored, setStored] = useState<HistoryPointer | null>(() => readPointer(compositionId));
  /** The status line; an "ok" message names the version it is about. */
  const [message, setMessage] = useState<{ text: string; kind: "ok" | "error"; version?: number } | null>(
    null,
  );
  // The side panel's tab survives a reload of this tab (sessionStorage).
  const [sideTab, setSideTab] = useState(() => {
    try {
      return sessionStorage.getItem(SIDE_TAB_KEY) ?? "media";
    } catch {
      return "media";
    }
  });
  const showTab = useCallback((tab: string) => {
    setSideTab(tab);
    try {
      sessionStorage.setItem(SIDE_TAB_KEY, tab);
    } catch {
      // Not remembered; the tab still shows.
    }
  }, []);
  const [busy, setBusy] = useState(false);
  /** The last refused write's error body and the clip it was about (its fields show the sentences). */
  const [refusal, setRefusal] = useState<{ track: number; index: number; error: unknown } | null>(null);
  const [playRequest, setPlayRequest] = useState(0);
  const [rendersKey, setRendersKey] = useState(0);

  const load = useCallback(async () => {
    const { data, error } = await api.GET("/api/compositions/{id}", {
      params: { path: { id: compositionId } },
    });
    if (data) setComp(data);
    else setMessage({ text: errorMessage(error), kind: "error" });
    return data ?? null;
  }, [compositionId, setComp]);

  useEffect(() => {
    void load();
    void api.GET("/api/v1/uploads", { params: { query: { projectId, limit: 100 } } }).then(({ data }) => {
      if (data) setUploads(data.data);
    });
  }, [load, projectId]);

  const loaded = comp !== null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: fit the zoom once, when the composition first loads
  useEffect(() => {
    if (comp) setZoom(fittingZoom(timelineEnd(comp)));
  }, [loaded]);

  const duration = comp ? timelineEnd(comp) : 0;

  /**
   * Sends a write based on the shown version (a patch, a revert) and shows its outcome; null when
   * it was refused (a conflict reloads the composition and says so).
   */
  const write = useCallback(
    async (label: string, send: (c: Composition) => Promise<PatchResult>) => {
      if (!comp || busy) return null;
      setBusy(true);
      const result = await send(comp);
      setBusy(false);
      if (!result.ok) {
        if (result.conflict) {
          const fresh = await load();
          setMessage({
            text: `The composition changed elsewhere; reloaded version ${fresh?.version ?? "?"}. Your change (${label}) was not applied.`,
            kind: "error",
          });
        } else {
          // The server's own sentence, and the clip it is about selected (highlighted) on the timeline.
          const refused = refusedEdit(label, result.error);
          setMessage({ text: refused.text, kind: "error" });
          setRefusal(
            refused.clip
              ? { track: refused.clip.track, index: refused.clip.index, error: result.error }
              : null,
          );
          const clipId = refused.clip
            ? (refused.clip.id ?? comp.tracks[refused.clip.track]?.clips[refused.clip.index]?.id)
            : undefined;
          if (clipId && findClip(comp, clipId)) {
            setSelection(
              refused.clip?.transition ? { kind: "transition", clipId } : { kind: "clip", id: clipId },
            );
          }
        }
        return null;
      }
      setRefusal(null);
      const entry = { label, before: comp, after: result.composition };
      setComp(result.composition);
      setMessage({
        text: `${label} · version ${result.composition.version}`,
        kind: "ok",
        version: result.composition.version,
      });
      return entry;
    },
    [comp, busy, load, setComp],
  );

  /** Sends a patch based on the shown version. */
  const apply = useCallback(
    async (label: string, ops: PatchOperation[]) =>
      ops.length === 0 ? null : write(label, (c) => patchComposition(c.id, c.version, ops)),
    [write],
  );

  // The version list, read again whenever the composition moves to another version.
  const shownVersion = comp?.version;
  useEffect(() => {
    if (shownVersion === undefined) return;
    let stop = false;
    listCompositionVersions(compositionId).then(
      (list) => {
        if (!stop) setVersions(list);
      },
      (err: Error) => {
        if (!stop) setMessage({ text: `History: ${err.message}`, kind: "error" });
      },
    );
    return () => {
      stop = true;
    };
  }, [compositionId, shownVersion]);

  const uploadMap = useMemo(() => new Map(uploads.map((u) => [u.id, u])), [uploads]);
  const labelOf = useCallback((clip: Clip) => clipLabel(clip, uploadName(clip, uploadMap)), [uploadMap]);
  const names = useMemo(
    () => (comp && versions ? knownNames(comp, versions.versions, labelOf) : new Map<string, string>()),
    [comp, versions, labelOf],
  );
  /** Undo and redo stand where this tab left them, unless someone wrote since. */
  const pointer = useMemo(
    () => (shownVersion === undefined ? null : pointerFor(stored, shownVersion)),
    [stored, shownVersion],
  );
  // The list must reach the shown version before undo can say what it undoes.
  const historyReady = !!(comp && versions && (versions.versions[0]?.version ?? 0) >= comp.version);
  const nextUndo = pointer && versions && historyReady ? undoStep(pointer, versions) : null;
  const nextRedo = pointer && historyReady ? redoStep(pointer) : null;
  const said = (version: number) => {
    const v = versions?.versions.find((x) => x.version === version);
    return v ? describeSummary(v.summary, names) : `version ${version}`;
  };
  const undoText = nextUndo ? `Undo: ${said(nextUndo.undone)}` : "Nothing to undo";
  const redoText = nextRedo ? `Redo: ${said(nextRedo.undone)}` : "Nothing to redo";

  const remember = useCallback(
    (next: HistoryPointer) => {
      savePointer(compositionId, next);
      setStored(next);
    },
    [compositionId],
  );

  /** Undo: reverts to the version before the change it undoes (a new version). */
  const undo = useCallback(async () => {
    if (!pointer || !nextUndo) return;
    const done = await write(undoText, (c) => revertComposition(c.id, c.version, nextUndo.target));
    if (done) remember(afterUndo(pointer, nextUndo, done.after.version));
  }, [pointer, nextUndo, undoText, write, remember]);

  /** Redo: reverts to the version the last undo left (a new version). */
  const redo = useCallback(async () => {
    if (!pointer || !nextRedo) return;
    const done = await write(redoText, (c) => revertComposition(c.id, c.version, nextRedo.to));
    if (done) remember(afterRedo(pointer, done.after.version));
  }, [pointer, nextRedo, redoText, write, remember]);

  /** Revert from the history list: a change like any other (undo takes it back). */
  const revertTo = useCallback(
    (version: number) =>
      void write(`Revert to version ${version}`, (c) => revertComposition(c.id, c.version, version)),
    [write],
  );

  /** An assistant edit: applied to the shown copy (or fetched again when versions differ). */
  const onAssistantPatch = useCallback(
    (p: AssistantPatch) => {
      if (p.compositionId !== compositionId) return;
      setShown((c) => {
        const next = c ? applyRemotePatch(c, p) : null;
        if (!next) void load();
        return next && c ? shareUnchanged(c, next) : c;
      });
    },
    [compositionId, load],
  );

  const sel = comp && selection?.kind === "clip" ? findClip(comp, selection.id) : null;
  const selTransition = comp && selection?.kind === "transition" ? findClip(comp, selection.clipId) : null;
  const selMarker = comp && selection?.kind === "marker" ? findMarker(comp, selection.id) : null;
  const missingWarning = sel ? comp?.warnings?.find((w) => w.clipId === sel.value.id) : undefined;
  const frame = comp ? 1 / comp.canvas.fps : 1 / 30;
  /** What the server refused in the selected clip's (or transition's) fields. */
  const at = sel ?? selTransition;
  const atTrack = at?.track;
  const atClip = at?.clip;
  const refusedHere = useMemo((): FieldErrors | undefined => {
    if (!refusal || refusal.track !== atTrack || refusal.index !== atClip) return undefined;
    return refusedFields(refusal.error, refusal.track, refusal.index);
  }, [refusal, atTrack, atClip]);

  const split = useCallback(() => {
    if (!sel) return;
    const ops = splitOps(sel, sel.value, playhead);
    if (ops) void apply("Split", ops);
    else setMessage({ text: "Put the playhead inside the selected clip to split it.", kind: "error" });
  }, [sel, playhead, apply]);

  /** Ripple delete: the selected clip goes and the later clips of its track close up behind it. */
  const rippleRemove = useCallback(() => {
    if (!comp || !sel) return;
    setSelection(null);
    void apply("Ripple delete", rippleDeleteOps(comp, sel.track, sel.clip));
  }, [comp, sel, apply]);

  const remove = useCallback(() => {
    if (sel) {
      setSelection(null);
      void apply("Delete clip", deleteOps(sel));
    } else if (selMarker) {
      setSelection(null);
      void apply("Delete marker", deleteMarkerOps(selMarker.index));
    } else if (selTransition) {
      const { transition: _removed, ...clip } = selTransition.value;
      setSelection({ kind: "clip", id: clip.id });
      void apply("Remove transition", clipEditOps(selTransition, selTransition.value, clip));
    }
  }, [sel, selMarker, selTransition, apply]);

  /** Adds a marker at the playhead and selects it, so that it can be named at once. */
  const addMarker = useCallback(async () => {
    if (!comp) return;
    const known = new Set((comp.markers ?? []).map((m) => m.id));
    const label = `Marker ${(comp.markers?.length ?? 0) + 1}`;
    const done = await apply("Add marker", addMarkerOps(comp, { time: playhead, label }));
    const added = done?.after.markers?.find((m) => !known.has(m.id));
    if (added) setSelection({ kind: "marker", id: added.id });
  }, [comp, playhead, apply]);

  const pps = ZOOMS[zoom] ?? 20;
  /** Seconds within which the editor treats two times as meant to be the same (the snap distance). */
  const tolerance = SNAP_PX / pps;

  /**
   * Puts upload `u` on the timeline at `start` (default: the playhead): on `track` when it can
   * hold it, else on a track of the right kind (saying why), or on a new track ("new"). On an
   * existing track it is inserted (see ripple.ts): it starts exactly where the clip before it
   * ends when it would leave a sliver of a gap, and pushes the later clips when it would overlap them.
   */
  async function addUpload(u: Upload, track?: number | "new", start = playhead) {
    if (!comp) return;
    const clip = clipFor(u, start) as ClipDraft | null;
    if (!clip) return;
    const placed =
      track === "new"
        ? { ops: addTrackOps(kindFor(clip.asset.type), [clip]), track: "new" as const, moved: null }
        : dropOps(comp, track, clip);
    const ops =
      placed.track === "new"
        ? placed.ops
        : insertOps(comp, placed.track, clip as Omit<Clip, "id">, start, tolerance).ops;
    const done = await apply(`Add ${u.name}`, ops);
    if (done && placed.moved) {
      setMessage({
        text: `Add ${u.name}: ${placed.moved} · version ${done.after.version}`,
        kind: "ok",
        version: done.after.version,
      });
    }
  }

  /** A transition put on the cut nearest `time` on track `track` (see {@link transitionDropOps}). */
  async function addTransition(track: number, type: string, time: number) {
    if (!comp) return;
    const drop = transitionDropOps(
      comp,
      track,
      time,
      type as Transition["type"],
      Math.max(2 * tolerance, 0.25),
    );
    if (!drop.ok) {
      setMessage({ text: `Add transition: ${drop.error}`, kind: "error" });
      return;
    }
    const done = await apply(`Add ${transitionLabel(type)}`, drop.ops);
    if (done) setSelection({ kind: "transition", clipId: drop.clipId });
  }

  /** The track a transition pressed in the strip goes on: the selected clip's, else the first video track. */
  const transitionTrack = () => {
    const id =
      selection?.kind === "clip" ? selection.id : selection?.kind === "transition" ? selection.clipId : null;
    const found = comp && id ? findClip(comp, id) : null;
    return found ? found.track : (comp?.tracks.findIndex((t) => t.kind === "video") ?? -1);
  };

  // A layout effect: the handler that sees a new selection is in place before the next key press
  // is handled (with a passive effect, Delete pressed right after a click could find the old one).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || !comp) return;
      const mod = e.ctrlKey || e.metaKey;
      const k = e.key;
      if (mod && k.toLowerCase() === "b") {
        e.preventDefault();
        split();
      } else if (mod && k.toLowerCase() === "z") {
        e.preventDefault();
        void (e.shiftKey ? redo() : undo());
      } else if (mod && k.toLowerCase() === "y") {
        e.preventDefault();
        void redo();
      } else if (mod) return;
      else if (k === " ") {
        if ((e.target as HTMLElement | null)?.tagName === "BUTTON") return;
        e.preventDefault();
        setPlayRequest((n) => n + 1);
      } else if (k === "j" || k === "J") setPlayhead((p) => Math.max(0, p - 1));
      else if (k === "l" || k === "L") setPlayhead((p) => Math.min(duration, p + 1));
      else if (k === "k" || k === "K") setPlayhead((p) => Math.round(p / frame) * frame);
      else if (k === "ArrowLeft") {
        e.preventDefault();
        setPlayhead((p) => Math.max(0, p - (e.shiftKey ? 1 : frame)));
      } else if (k === "ArrowRight") {
        e.preventDefault();
        setPlayhead((p) => Math.min(duration, p + (e.shiftKey ? 1 : frame)));
      } else if (k === "Home") setPlayhead(0);
      else if (k === "End") setPlayhead(duration);
      else if (k === "s" || k === "S") split();
      else if (k === "m" || k === "M") void addMarker();
      else if ((k === "Delete" || k === "Backspace") && e.shiftKey && sel) rippleRemove();
      else if (k === "Delete" || k === "Backspace") remove();
      else if (k === "Escape") setSelection(null);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [comp, undo, redo, split, remove, rippleRemove, sel, addMarker, duration, frame]);

  /** Points every clip of upload `from` (a deleted one) at upload `to`, as one new version. */
  async function relink(from: string, to: string) {
    if (!comp || busy) return;
    setBusy(true);
    const { data, error } = await api.POST("/api/compositions/{id}/relink", {
      params: { path: { id: comp.id }, header: { "if-match": `"${comp.version}"` } },
      body: { from, to },
    });
    setBusy(false);
    if (data) {
      setComp(data);
      setMessage({ text: `Relinked · version ${data.version}`, kind: "ok", version: data.version });
    } else setMessage({ text: refusedEdit("Relink", error).text, kind: "error" });
  }

  async function render() {
    if (!comp) return;
    const { data, error } = await api.POST("/api/render", {
      body: { compositionId: comp.id, output: { format: "mp4", quality: "standard" } },
    });
    if (data) {
      setRendersKey((k) => k + 1);
      setMessage({
        text: `Render of “${comp.name}” started (version ${comp.version}); it is listed below.`,
        kind: "ok",
        version: comp.version,
      });
    } else setMessage({ text: errorMessage(error), kind: "error" });
  }

  if (!comp) {
    return (
      <Layout title="Composition">
        <Status message={message?.text ?? null} kind="error" />
        <p>Loading…</p>
      </Layout>
    );
  }

  const families = uploads.flatMap((u) => (u.type === "font" ? (u.fontFamilies ?? []) : []));
  // The status line speaks of the shown version: a message about an older one gives way to it.
  const status =
    message && (message.kind === "error" || message.version === comp.version)
      ? message
      : message
        ? { text: `Version ${comp.version}: changed since (${message.text})`, kind: "ok" as const }
        : null;

  const preview = (
    <Preview
      compositionId={comp.id}
      version={comp.version}
      playhead={playhead}
      duration={duration}
      playRequest={playRequest}
      onPlaying={() => {}}
    />
  );

  const inspector = (
    <section className="card props-card" aria-labelledby="props-h">
      <h2 id="props-h">
        {sel ? "Clip" : selTransition ? "Transition" : selMarker ? "Marker" : "Composition"}
      </h2>
      {sel && missingWarning && (
        <MissingMedia
          key={sel.value.id}
          clip={sel.value}
          message={missingWarning.message}
          uploads={uploads}
          busy={busy}
          onRelink={(to) => void relink(missingWarning.uploadId, to)}
          onDelete={remove}
        />
      )}
      {sel ? (
        <>
          <PictureLayouts
            clip={sel.value}
            busy={busy}
            onApply={(next) => void apply("Layout", clipEditOps(sel, sel.value, next))}
          />
          <ClipProperties
            clip={sel.value}
            version={comp.version}
            fps={comp.canvas.fps}
            onApply={(next) => void apply("Edit clip", clipEditOps(sel, sel.value, next))}
            onDelete={remove}
            onSplit={split}
            refused={refusedHere}
          />
          <TextStyleProperties
            clip={sel.value}
            version={comp.version}
            canvasHeight={comp.canvas.height}
            families={families}
            onApply={(next) => void apply("Edit style", clipEditOps(sel, sel.value, next))}
          />
        </>
      ) : selTransition?.value.transition ? (
        <TransitionProperties
          transition={selTransition.value.transition}
          from={previousClipLabel(comp, selTransition, uploadMap)}
          into={clipLabel(selTransition.value, uploadName(selTransition.value, uploadMap))}
          version={comp.version}
          fps={comp.canvas.fps}
          onApply={(next: Transition) =>
            void apply(
              "Edit transition",
              clipEditOps(selTransition, selTransition.value, {
                ...selTransition.value,
                transition: next,
              }),
            )
          }
          onRemove={remove}
          refused={refusedHere}
        />
      ) : selMarker ? (
        <MarkerProperties
          marker={selMarker.value}
          version={comp.version}
          fps={comp.canvas.fps}
          onApply={(next: Marker) =>
            void apply("Edit marker", markerEditOps(selMarker.index, selMarker.value, next))
          }
          onDelete={remove}
        />
      ) : (
        <>
          <p className="hint">Select a clip, a transition or a marker on the timeline to edit it.</p>
          <CompositionSettingsForm
            key={comp.version}
            composition={comp}
            busy={busy}
            onApply={(label, ops) => void apply(label, ops)}
          />
          <details className="ids">
            <summary>Details</summary>
            <dl>
              <dt>Composition id</dt>
              <dd>{comp.id}</dd>
              <dt>Project id</dt>
              <dd>{projectId}</dd>
            </dl>
          </details>
        </>
      )}
    </section>
  );

  const side = (
    <PanelTabs
      label="Tools"
      current={sideTab}
      onChange={showTab}
      tabs={[
        {
          id: "media",
          label: "Media",
          panel: <MediaBin uploads={uploads} onAdd={(u) => void addUpload(u)} />,
        },
        {
          id: "text",
          label: "Text",
          panel: (
            <TextTool
              composition={comp}
              playhead={playhead}
              families={families}
              busy={busy}
              onAdd={(label, ops) => void apply(label, ops)}
            />
          ),
        },
        {
          id: "captions",
          label: "Captions",
          panel: (
            <CaptionsTool
              composition={comp}
              projectId={projectId}
              playhead={playhead}
              uploads={uploads}
              families={families}
              busy={busy}
              onUploaded={(u) => setUploads((list) => [u, ...list.filter((x) => x.id !== u.id)])}
              onAdd={(label, ops) => void apply(label, ops)}
            />
          ),
        },
        {
          id: "assistant",
          label: "Assistant",
          keepMounted: true,
          panel: <AssistantPanel compositionId={comp.id} projectId={projectId} onPatch={onAssistantPatch} />,
        },
      ]}
    />
  );

  const timeline = (
    <>
      <div className="toolbar hbox" role="toolbar" aria-label="Timeline tools">
        <button
          type="button"
          onClick={undo}
          disabled={!nextUndo || busy}
          title={undoText}
          aria-describedby="undo-next"
        >
          Undo
        </button>
        <button type="button" onClick={redo} disabled={!nextRedo || busy} title={redoText}>
          Redo
        </button>
        <small id="undo-next" className="undo-next" data-testid="undo-next">
          {undoText}
        </small>
        <button type="button" className="secondary" onClick={split} disabled={!sel}>
          Split
        </button>
        <button type="button" className="secondary" onClick={remove} disabled={!selection}>
          Delete
        </button>
        <button
          type="button"
          className="secondary"
          onClick={rippleRemove}
          disabled={!sel}
          title="Delete the clip and move the later clips of its track earlier (Shift+Delete)"
        >
          Ripple delete
        </button>
        <button type="button" className="secondary" onClick={addMarker}>
          Add marker
        </button>
        <AddTrackButtons busy={busy} onAdd={(label, ops) => void apply(label, ops)} />
        <button
          type="button"
          className="secondary"
          onClick={() => setZoom((z) => Math.max(0, z - 1))}
          aria-label="Zoom out"
        >
          −
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => setZoom((z) => Math.min(ZOOMS.length - 1, z + 1))}
          aria-label="Zoom in"
        >
          +
        </button>
        <span aria-live="polite">Playhead {playhead.toFixed(2)} s</span>
        <button type="button" onClick={render}>
          Render video
        </button>
      </div>
      <Status message={status?.text ?? null} kind={status?.kind} />
      <Timeline
        composition={comp}
        uploads={uploadMap}
        pxPerSecond={pps}
        playhead={playhead}
        selection={selection}
        onSelect={setSelection}
        onSeek={setPlayhead}
        onDragEnd={(clipId, mode, time) => {
          const found = findClip(comp, clipId);
          if (!found) return;
          const { start, duration: length } = found.value;
          if (mode === "move") void apply("Move clip", moveOps(found, time));
          else {
            const delta = time - (mode === "start" ? start : start + length);
            void apply("Trim clip", trimOps(found, found.value, mode, delta, frame));
          }
        }}
        onMarkerMove={(markerId, time) => {
          const found = findMarker(comp, markerId);
          if (!found) return;
          void apply("Move marker", markerEditOps(found.index, found.value, { ...found.value, time }));
        }}
        onDropTransition={(track, type, time) => void addTransition(track, type, time)}
        onCloseGap={(track, clip) => void apply("Close gap", closeGapOps(comp, track, clip))}
        onCloseTrackGaps={(track) => void apply("Close gaps", closeTrackGapsOps(comp, track))}
        onDropUpload={(track, uploadId, start) => {
          const u = uploadMap.get(uploadId);
          if (u) void addUpload(u, track, start);
        }}
        onDropNewTrack={(uploadId, start) => {
          const u = uploadMap.get(uploadId);
          if (u) void addUpload(u, "new", start);
        }}
      />
      <TransitionStrip
        onAdd={(type) => {
          const t = transitionTrack();
          if (t >= 0) void addTransition(t, type, playhead);
        }}
      />
    </>
  );

  return (
    <Layout title={comp.name} wide>
      <p className="hbox editor-line">
        <Link to={`/console/projects/${projectId}`}>← Project</Link>
        <span>
          {comp.canvas.width}×{comp.canvas.height} · {comp.canvas.fps} fps · {formatDuration(duration)} ·{" "}
          <span data-testid="version">version {comp.version}</span>
        </span>
      </p>
      <EditorWorkspace side={side} preview={preview} inspector={inspector} timeline={timeline} />
      <p className="hint">
        Keys: Space play from here · J/L back/forward 1 s · ←/→ one frame (Shift: 1 s) · S or Ctrl+B split at
        the playhead · M add a marker · Delete remove · Shift+Delete ripple delete · Ctrl+Z undo ·
        Ctrl+Shift+Z redo. Drags snap to clip edges, the playhead and markers (hold Alt for frames only);
        click a striped gap to close it.
      </p>
      <HistoryPanel
        composition={comp}
        versions={versions}
        names={names}
        label={labelOf}
        busy={busy}
        onRevert={revertTo}
      />
      <section className="card" aria-labelledby="comp-renders">
        <h2 id="comp-renders">Renders of this composition</h2>
        <RenderList compositionId={comp.id} refreshKey={rendersKey} />
      </section>
    </Layout>
  );
}
