import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Clip, Composition, Marker, Upload } from "../api/client";
import { clipLabel, findClip, timelineEnd } from "../edits";
import { type Gap, trackGaps } from "../ripple";
import { SNAP_PX, type SnapPoint, type Snapped, snapMove, snapPoints, snapTime } from "../snap";
import { formatTimecode, toFrameGrid } from "../timecode";
import {
  clipsInWindow,
  drawWindow,
  MIN_LABEL_PX,
  markerLabelRoom,
  type TimeWindow,
} from "../timeline-window";
import { trackContent } from "../tools";
import { Waveform } from "./Waveform";

/** MIME type of an upload dragged from the media bin onto a track. */
export const UPLOAD_DRAG_TYPE = "application/x-cutroom-upload";
/** MIME type of a transition dragged from the transitions strip onto a cut (the data: its type). */
export const TRANSITION_DRAG_TYPE = "application/x-cutroom-transition";
/** Pixels the pointer must travel before a press on a clip or marker counts as a drag. */
const DRAG_START_PX = 3;
/** Narrowest a gap is drawn, pixels (a gap of a frame or less must still be seen and clicked). */
const MIN_GAP_PX = 8;

/** Width of the grab zone at each end of a clip block, pixels. */
const EDGE_PX = 8;
/** Narrowest a transition is drawn, pixels (so that it can be clicked at any zoom). */
const MIN_TRANSITION_PX = 12;

/** What the editor has selected on the timeline. */
export type Selection =
  | { kind: "clip"; id: string }
  | { kind: "transition"; clipId: string }
  | { kind: "marker"; id: string }
  | null;

type DragMode = "move" | "start" | "end";
/**
 * A drag in progress: what is dragged, where the pointer went down, and where the dragged thing
 * lands (`time`: a clip's new start, or the dragged edge's time, or the marker's or playhead's
 * time, already snapped), drawn `dx` pixels from where it was; `snap` is the point it met.
 */
type Drag = {
  kind: "clip" | "marker" | "playhead";
  id: string;
  mode: DragMode;
  x0: number;
  dx: number;
  moved: boolean;
  time: number;
  snap: SnapPoint | null;
};

export interface TimelineProps {
  composition: Composition;
  uploads: ReadonlyMap<string, Upload>;
  /** Zoom: pixels per second. */
  pxPerSecond: number;
  playhead: number;
  selection: Selection;
  /** Must be stable (a state setter): clip blocks are memoised on it. */
  onSelect: (s: Selection) => void;
  onSeek: (t: number) => void;
  /**
   * A finished clip drag, snapped: for a move the clip's new start, for a trim the new time of
   * the dragged edge, seconds.
   */
  onDragEnd: (clipId: string, mode: DragMode, time: number) => void;
  /** A finished marker drag: the marker's new time, seconds, snapped. */
  onMarkerMove: (markerId: string, time: number) => void;
  /** An upload dropped on track `track`, its start snapped like a drag. */
  onDropUpload: (track: number, uploadId: string, start: number) => void;
  /** A transition of `type` dropped on track `track` at `time` seconds (where the pointer was). */
  onDropTransition: (track: number, type: string, time: number) => void;
  /** Close the gap before clip index `clip` of track `track`. */
  onCloseGap: (track: number, clip: number) => void;
  /** Close every gap between the clips of track `track`. */
  onCloseTrackGaps: (track: number) => void;
  /** An upload dropped on the zone below the tracks: a new track of the kind it needs. */
  onDropNewTrack?: (uploadId: string, start: number) => void;
}

/** Ruler tick spacing, seconds, for a zoom: about one labelled tick per 80 pixels. */
function tickStep(pxPerSecond: number): number {
  const steps = [0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  return steps.find((s) => s * pxPerSecond >= 80) ?? 600;
}

/**
 * A ruler time: `m:ss` on whole seconds, else timecode `m:ss.ff` at the canvas rate (frames, as
 * the time fields read it: half a second at 23.976 fps is `0:00.12`).
 */
function formatRulerTime(t: number, fps: number): string {
  if (Math.abs(t - Math.round(t)) < 1e-9) {
    const s = Math.round(t);
    const ss = String(s % 60).padStart(2, "0");
    return s >= 3600
      ? `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${ss}`
      : `${Math.floor(s / 60)}:${ss}`;
  }
  return formatTimecode(t, fps);
}

/** Whether a clip plays sound the waveform can show: audio, or video (not frozen) whose upload has a sound track. */
function hasSound(clip: Clip, upload: Upload | undefined): boolean {
  if (!upload || clip.muted || clip.freeze) return false;
  return clip.asset.type === "audio" || (clip.asset.type === "video" && !!upload.media?.hasAudio);
}

const ClipBlock = memo(function ClipBlock(props: {
  clip: Clip;
  upload: Upload | undefined;
  pxPerSecond: number;
  selected: boolean;
  /** Its upload was deleted (the composition's `warnings`): drawn struck through, still editable. */
  missing: boolean;
  drag: Drag | null;
  onPointerDown: (e: React.PointerEvent, kind: Drag["kind"], id: string, mode: DragMode) => void;
  onSelect: (clipId: string) => void;
}) {
  const { clip, upload, pxPerSecond: pps, drag } = props;
  let left = clip.start * pps;
  let width = clip.duration * pps;
  if (drag) {
    if (drag.mode === "move") left += drag.dx;
    else if (drag.mode === "end") width = Math.max(2, width + drag.dx);
    else {
      left += drag.dx;
      width = Math.max(2, width - drag.dx);
    }
  }
  const label = clipLabel(clip, upload?.name);
  const poster = upload?.posterUrl ?? (upload?.type === "image" ? upload.url : null);
  const color = clip.asset.type === "color" ? clip.asset.color : undefined;
  return (
    <button
      type="button"
      className={`clip ${clip.asset.type}${props.selected ? " selected" : ""}${props.missing ? " missing" : ""}`}
      style={{ left, width, ...(color ? { background: color } : {}) }}
      aria-label={`Clip ${label}${props.missing ? " (media missing)" : ""}, ${clip.start.toFixed(2)} to ${(clip.start + clip.duration).toFixed(2)} s`}
      title={props.missing ? `${label}: its upload was deleted; relink or delete the clip` : undefined}
      aria-pressed={props.selected}
      data-clip-id={clip.id}
      onClick={() => props.onSelect(clip.id)}
      onPointerDown={(e) => {
        const rect = e.currentTarget.getBoundingClientRect();
        const x = e.clientX - rect.left;
        props.onPointerDown(
          e,
          "clip",
          clip.id,
          x < EDGE_PX ? "start" : x > rect.width - EDGE_PX ? "end" : "move",
        );
      }}
    >
      {upload && hasSound(clip, upload) && (
        <Waveform
          uploadId={upload.id}
          trim={clip.trim ?? 0}
          speed={clip.speed ?? 1}
          duration={clip.duration}
          pxPerSecond={pps}
        />
      )}
      {/* Decoded off the main thread; not lazy: only blocks near the view are drawn anyway, and a
          lazy image is one more intersection check in every scrolled frame. */}
      {poster && width > 40 && <img src={poster} alt="" decoding="async" draggable={false} />}
      <span className="name">
        {props.missing && "Missing · "}
        {label}
      </span>
    </button>
  );
});

/**
 * A gap between two clips of a track, however short (a sliver of a frame shows as black or as
 * the tracks below): drawn at least {@link MIN_GAP_PX} wide; clicking it closes it.
 */
const GapMark = memo(function GapMark(props: {
  gap: Gap;
  track: number;
  pxPerSecond: number;
  fps: number;
  onClose: (track: number, clip: number) => void;
}) {
  const { gap, pxPerSecond: pps } = props;
  const width = Math.max(MIN_GAP_PX, (gap.end - gap.start) * pps);
  const seconds = gap.end - gap.start;
  return (
    <button
      type="button"
      className="gap"
      style={{ left: ((gap.start + gap.end) / 2) * pps - width / 2, width }}
      aria-label={`Close the ${seconds < 0.01 ? seconds.toFixed(4) : seconds.toFixed(2)} s gap at ${formatTimecode(gap.start, props.fps)}`}
      title="Gap: click to close it (the clips after it move earlier)"
      onClick={() => props.onClose(props.track, gap.clip)}
    />
  );
});

/** A transition drawn across the cut it sits on (half before, half after the clip's start). */
const TransitionMark = memo(function TransitionMark(props: {
  clip: Clip;
  label: string;
  pxPerSecond: number;
  /** Pixels the clip is being dragged by (a move or its start edge), else 0. */
  offset: number;
  selected: boolean;
  onSelect: (clipId: string) => void;
}) {
  const { clip, pxPerSecond: pps } = props;
  const t = clip.transition;
  if (!t) return null;
  const width = Math.max(MIN_TRANSITION_PX, t.duration * pps);
  return (
    <button
      type="button"
      className={`transition${props.selected ? " selected" : ""}`}
      style={{ left: clip.start * pps + props.offset - width / 2, width }}
      aria-label={`Transition ${t.type} ${t.duration} s into ${props.label}`}
      aria-pressed={props.selected}
      title={`${t.type} ${t.duration} s`}
      onClick={() => props.onSelect(clip.id)}
    />
  );
});

/**
 * A marker on the ruler: a flag with its label at its time, the label cut to `room` pixels (so
 * that it stops short of the next marker) and left out below {@link MIN_LABEL_PX} (the flag, its
 * tick and its accessible name stay; hovering, focusing or selecting it shows the whole label on
 * top). Click selects it, dragging moves it.
 */
const MarkerFlag = memo(function MarkerFlag(props: {
  marker: Marker;
  pxPerSecond: number;
  dx: number;
  /** Pixels the label may take before the next marker (`Infinity`: no marker after it). */
  room: number;
  selected: boolean;
  onPointerDown: (e: React.PointerEvent, kind: Drag["kind"], id: string, mode: DragMode) => void;
  onSelect: (markerId: string) => void;
}) {
  const { marker: m, room } = props;
  const tight = room < MIN_LABEL_PX;
  return (
    <button
      type="button"
      className={`marker${props.selected ? " selected" : ""}${tight ? " tight" : ""}`}
      style={{
        left: m.time * props.pxPerSecond + props.dx,
        ...(Number.isFinite(room) && !tight ? { "--room": `${room}px` } : {}),
      }}
      aria-label={`Marker ${m.label || "(no label)"} at ${m.time.toFixed(2)} s`}
      aria-pressed={props.selected}
      title={m.label}
      onPointerDown={(e) => props.onPointerDown(e, "marker", m.id, "move")}
      onClick={() => props.onSelect(m.id)}
    >
      <span className="label">{m.label || "·"}</span>
    </button>
  );
});

/** The zone below the tracks: media dropped on it goes on a new track of the kind it needs. */
function NewTrackZone(props: { onDrop: (uploadId: string, clientX: number) => void }) {
  const [over, setOver] = useState(false);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a drop target row, like the track rows above it
    <div
      className={`lane new-track${over ? " over" : ""}`}
      role="group"
      aria-label="New track: drop media here"
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(UPLOAD_DRAG_TYPE)) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        const id = e.dataTransfer.getData(UPLOAD_DRAG_TYPE);
        if (!id) return;
        e.preventDefault();
        props.onDrop(id, e.clientX);
      }}
    >
      <span>Drop media here for a new track</span>
    </div>
  );
}

/**
 * The timeline drawn to scale: a time ruler with markers, one row per track, each clip a
 * block placed at its start and as wide as its duration (name, poster and, for clips with
 * sound, the waveform inside), transitions across the cuts they sit on, and the playhead.
 * Clicking or dragging on the ruler moves the playhead; clips, transitions and markers are
 * selected by click or keyboard; dragging a clip moves it, dragging its edges trims it and
 * dragging a marker moves it, committed on release. Every drag (and the playhead, and an upload
 * dropped from the media bin) snaps to the edges of the clips of all tracks, the playhead and
 * the markers within {@link SNAP_PX} pixels, shown by a snap line, else to the canvas frame
 * grid; holding Alt leaves only the frame grid. Gaps between clips are drawn, however short,
 * and close when clicked; a transition dropped near a cut goes on it. Only the clips, gaps and
 * ticks within a few viewport widths of the scroll position are
 * drawn (the selected and the dragged clip always), so a long timeline scrolls as fast as a
 * short one.
 *
 * Scrolling is kept cheap per frame: the track names are a column beside the scroller (not
 * sticky inside it, which made the browser composite the content above them in extra
 * viewport-wide layers), the scroll listener is passive and reads no layout, ruler and lanes are
 * size-contained (a window change lays out only inside them) and the playhead moves by a
 * transform on its own layer.
 */
export function Timeline(props: TimelineProps) {
  const { composition: c, pxPerSecond: pps, selection, onSelect } = props;
  const [drag, setDrag] = useState<Drag | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const [win, setWin] = useState<TimeWindow>(() => drawWindow(0, window.innerWidth, pps));
  const end = Math.max(timelineEnd(c), props.playhead) + 5;
  const width = Math.ceil(end * pps);
  const step = tickStep(pps);
  const ticks: number[] = [];
  for (let i = Math.floor(win.from / step); i * step <= Math.min(end, win.to); i++)
    ticks.push(Math.round(i * step * 1000) / 1000);
  const fps = c.canvas.fps;
  /** Seconds within which a drag snaps to a snap point ({@link SNAP_PX} at this zoom). */
  const threshold = SNAP_PX / pps;
  const markers = c.markers ?? [];
  const warnings = c.warnings;
  const missing = useMemo(() => new Set((warnings ?? []).map((w) => w.clipId)), [warnings]);
  const labelRoom = useMemo(() => markerLabelRoom(markers, pps), [markers, pps]);
  const tracks = c.tracks;
  const gaps = useMemo(() => tracks.map((t) => trackGaps(t)), [tracks]);

  /**
   * Recomputes the drawn window from the scroll position. While it stays the same (most scroll
   * events) nothing is scheduled at all: the comparison is with a ref, not inside a state update.
   * The viewport's width comes from the resize observer, so a scroll event reads no layout but
   * the scroll offsets. A vertical scroll (tracks taller than the editor's timeline panel, whose
   * ruler stays on top) moves the names column with the lanes.
   */
  const shown = useRef(win);
  const viewport = useRef(0);
  /** The track names, moved with the lanes when the timeline scrolls up and down (editor layout). */
  const names = useRef<HTMLDivElement>(null);
  const shownTop = useRef(0);
  const syncWindow = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const top = el.scrollTop;
    if (top !== shownTop.current && names.current) {
      shownTop.current = top;
      names.current.style.transform = top ? `translateY(${-top}px)` : "";
    }
    const next = drawWindow(el.scrollLeft, viewport.current || el.clientWidth, pps);
    if (next.from === shown.current.from && next.to === shown.current.to) return;
    shown.current = next;
    setWin(next);
  }, [pps]);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    viewport.current = el.clientWidth;
    syncWindow();
    const observer = new ResizeObserver(([entry]) => {
      viewport.current = entry?.contentRect.width ?? el.clientWidth;
      syncWindow();
    });
    observer.observe(el);
    el.addEventListener("scroll", syncWindow, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", syncWindow);
    };
  }, [syncWindow]);

  /** Timeline seconds at a client x coordinate (inside the scrolled area). */
  const timeAt = (clientX: number) => {
    const el = scroller.current;
    if (!el) return 0;
    const rect = el.getBoundingClientRect();
    return Math.max(0, (clientX - rect.left + el.scrollLeft) / pps);
  };
  // What a drag snaps to, taken when it starts (the composition does not change during a drag).
  const latest = useRef({ c, playhead: props.playhead });
  latest.current = { c, playhead: props.playhead };
  const points = useRef<SnapPoint[]>([]);
  // Stable (the editor's handler is not), so that a re-render draws no gap again.
  const onCloseGap = useRef(props.onCloseGap);
  onCloseGap.current = props.onCloseGap;
  const closeGap = useCallback((track: number, clip: number) => onCloseGap.current(track, clip), []);
  // Stable, so that a playhead move or a drag re-renders only the blocks whose props changed.
  const startDrag = useCallback((e: React.PointerEvent, kind: Drag["kind"], id: string, mode: DragMode) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    const { c: now, playhead } = latest.current;
    points.current = snapPoints(now, kind === "playhead" ? null : playhead, id);
    setDrag({ kind, id, mode, x0: e.clientX, dx: 0, moved: false, time: Number.NaN, snap: null });
  }, []);

  /**
   * Where `d` lands with the pointer at `clientX`: snapped to a clip edge, the playhead or a
   * marker within {@link SNAP_PX}, else to the frame grid (only the frame grid with Alt held).
   */
  const dragTo = (d: Drag, clientX: number, free: boolean): Drag => {
    const raw = (clientX - d.x0) / pps;
    let from = 0;
    let s: Snapped;
    if (d.kind === "playhead") {
      s = snapTime(timeAt(clientX), points.current, threshold, fps, free);
    } else if (d.kind === "marker") {
      from = markers.find((m) => m.id === d.id)?.time ?? 0;
      s = snapTime(from + raw, points.current, threshold, fps, free);
    } else {
      const clip = findClip(c, d.id)?.value;
      if (!clip) return d;
      from = d.mode === "end" ? clip.start + clip.duration : clip.start;
      s =
        d.mode === "move"
          ? snapMove(clip.start + raw, clip.duration, points.current, threshold, fps, free)
          : snapTime(from + raw, points.current, threshold, fps, free);
    }
    const moved = d.moved || Math.abs(clientX - d.x0) >= DRAG_START_PX;
    return { ...d, moved, time: s.time, snap: s.point, dx: moved ? (s.time - from) * pps : 0 };
  };
  const selectClip = useCallback((id: string) => onSelect({ kind: "clip", id }), [onSelect]);
  const selectTransition = useCallback(
    (clipId: string) => onSelect({ kind: "transition", clipId }),
    [onSelect],
  );
  const selectMarker = useCallback((id: string) => onSelect({ kind: "marker", id }), [onSelect]);

  const selectedClip =
    selection?.kind === "clip" ? selection.id : selection?.kind === "transition" ? selection.clipId : null;
  const draggedClip = drag?.kind === "clip" ? drag.id : null;
  const keep = useMemo(
    () => new Set([selectedClip, draggedClip].filter((x): x is string => x !== null)),
    [selectedClip, draggedClip],
  );

  return (
    <div className="timeline-box">
      <div className="track-names">
        <div className="corner" />
        <div className="track-name-list" ref={names}>
          {c.tracks.map((track, ti) => (
            <div className="track-name" key={track.id}>
              {track.name ?? `Track ${ti + 1}`}
              <small>{trackContent(track)}</small>
              {(gaps[ti]?.length ?? 0) > 0 && (
                <button
                  type="button"
                  className="close-gaps"
                  onClick={() => props.onCloseTrackGaps(ti)}
                  aria-label={`Close all gaps on track ${ti + 1}`}
                  title="Close every gap between the clips of this track"
                >
                  Close gaps
                </button>
              )}
            </div>
          ))}
          {props.onDropNewTrack && <div className="track-name new-track">New track</div>}
        </div>
      </div>
      <div
        className="timeline"
        ref={scroller}
        onPointerMove={(e) => {
          if (!drag) return;
          const next = dragTo(drag, e.clientX, e.altKey);
          setDrag(next);
          if (next.kind === "playhead") props.onSeek(next.time);
        }}
        onPointerUp={(e) => {
          if (!drag) return;
          setDrag(null);
          if (drag.kind === "playhead" || !drag.moved) return;
          const end = dragTo(drag, e.clientX, e.altKey);
          if (end.dx === 0) return;
          if (drag.kind === "marker") props.onMarkerMove(drag.id, end.time);
          else props.onDragEnd(drag.id, drag.mode, end.time);
        }}
        onPointerCancel={() => setDrag(null)}
      >
        <div className="timeline-inner" style={{ width }}>
          <div className="ruler">
            <div
              className="scale"
              role="slider"
              tabIndex={0}
              aria-label="Playhead position"
              aria-valuemin={0}
              aria-valuemax={Math.round(end)}
              aria-valuenow={Math.round(props.playhead * 100) / 100}
              aria-valuetext={`${props.playhead.toFixed(2)} seconds`}
              onPointerDown={(e) => {
                startDrag(e, "playhead", "playhead", "move");
                props.onSeek(toFrameGrid(timeAt(e.clientX), fps));
              }}
            >
              {/* One positioned row of equal-width ticks: a tick is no layer of its own to lay out, paint or hit-test. */}
              <div
                className="ticks"
                style={{ left: (ticks[0] ?? 0) * pps, "--tick": `${step * pps}px` } as React.CSSProperties}
              >
                {ticks.map((t) => (
                  <span key={t} className="tick">
                    {formatRulerTime(t, fps)}
                  </span>
                ))}
              </div>
            </div>
            {markers
              .filter((m) => (m.time >= win.from && m.time <= win.to) || drag?.id === m.id)
              .map((m) => (
                <MarkerFlag
                  key={m.id}
                  marker={m}
                  pxPerSecond={pps}
                  dx={drag?.kind === "marker" && drag.id === m.id ? drag.dx : 0}
                  room={labelRoom.get(m.id) ?? Number.POSITIVE_INFINITY}
                  selected={selection?.kind === "marker" && selection.id === m.id}
                  onPointerDown={startDrag}
                  onSelect={selectMarker}
                />
              ))}
          </div>
          {c.tracks.map((track, ti) => (
            // biome-ignore lint/a11y/useSemanticElements: a track row is a group of clip buttons, not a form fieldset
            <div
              key={track.id}
              className="lane"
              role="group"
              aria-label={`Track ${ti + 1}: ${track.name ?? trackContent(track)}`}
              onDragOver={(e) => {
                const types = e.dataTransfer.types;
                if (types.includes(UPLOAD_DRAG_TYPE) || types.includes(TRANSITION_DRAG_TYPE))
                  e.preventDefault();
              }}
              onDrop={(e) => {
                const transition = e.dataTransfer.getData(TRANSITION_DRAG_TYPE);
                if (transition) {
                  e.preventDefault();
                  props.onDropTransition(ti, transition, timeAt(e.clientX));
                  return;
                }
                const id = e.dataTransfer.getData(UPLOAD_DRAG_TYPE);
                if (!id) return;
                e.preventDefault();
                const at = snapTime(timeAt(e.clientX), snapPoints(c, props.playhead, null), threshold, fps);
                props.onDropUpload(ti, id, at.time);
              }}
            >
              {(gaps[ti] ?? [])
                .filter((g) => g.end >= win.from && g.start <= win.to)
                .map((g) => (
                  <GapMark
                    key={`gap-${g.clip}`}
                    gap={g}
                    track={ti}
                    pxPerSecond={pps}
                    fps={fps}
                    onClose={closeGap}
                  />
                ))}
              {clipsInWindow(track.clips, win, keep).map((clip) => {
                const upload =
                  "uploadId" in clip.asset && clip.asset.uploadId
                    ? props.uploads.get(clip.asset.uploadId)
                    : undefined;
                const dragged = drag?.kind === "clip" && drag.id === clip.id ? drag : null;
                return [
                  <ClipBlock
                    key={clip.id}
                    clip={clip}
                    upload={upload}
                    pxPerSecond={pps}
                    selected={selection?.kind === "clip" && selection.id === clip.id}
                    missing={missing.has(clip.id)}
                    drag={dragged}
                    onPointerDown={startDrag}
                    onSelect={selectClip}
                  />,
                  clip.transition && (
                    <TransitionMark
                      key={`${clip.id}-transition`}
                      clip={clip}
                      label={clipLabel(clip, upload?.name)}
                      pxPerSecond={pps}
                      offset={dragged && dragged.mode !== "end" ? dragged.dx : 0}
                      selected={selection?.kind === "transition" && selection.clipId === clip.id}
                      onSelect={selectTransition}
                    />
                  ),
                ];
              })}
            </div>
          ))}
          {props.onDropNewTrack && (
            <NewTrackZone
              onDrop={(id, x) =>
                props.onDropNewTrack?.(
                  id,
                  snapTime(timeAt(x), snapPoints(c, props.playhead, null), threshold, fps).time,
                )
              }
            />
          )}
          <div
            className="playhead"
            style={{ transform: `translateX(${props.playhead * pps}px)` }}
            aria-hidden="true"
          />
          {drag?.snap && (
            <div
              className={`snap-line ${drag.snap.kind}`}
              style={{ transform: `translateX(${drag.snap.time * pps}px)` }}
              data-testid="snap-line"
              aria-hidden="true"
            />
          )}
        </div>
      </div>
    </div>
  );
}
