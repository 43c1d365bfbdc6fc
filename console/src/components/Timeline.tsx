import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Clip, Composition, Marker, Upload } from "../api/client";
import { clipLabel, timelineEnd } from "../edits";
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
type Drag = { kind: "clip" | "marker"; id: string; mode: DragMode; x0: number; dx: number };

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
  /** A finished clip drag: `delta` seconds (frame-snapped) of a move or of the start or end edge. */
  onDragEnd: (clipId: string, mode: DragMode, delta: number) => void;
  /** A finished marker drag: `delta` seconds, frame-snapped. */
  onMarkerMove: (markerId: string, delta: number) => void;
  onDropUpload: (track: number, uploadId: string, start: number) => void;
  /** An upload dropped on the zone below the tracks: a new track of the kind it needs. */
  onDropNewTrack?: (uploadId: string, start: number) => void;
}

/** Ruler tick spacing, seconds, for a zoom: about one labelled tick per 80 pixels. */
function tickStep(pxPerSecond: number): number {
  const steps = [0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  return steps.find((s) => s * pxPerSecond >= 80) ?? 600;
}

function formatRulerTime(t: number): string {
  const m = Math.floor(t / 60);
  const s = t - m * 60;
  return `${m}:${s.toFixed(s % 1 === 0 ? 0 : 1).padStart(2, "0")}`;
}

/** Whether a clip plays sound the waveform can show: audio, or video whose upload has a sound track. */
function hasSound(clip: Clip, upload: Upload | undefined): boolean {
  if (!upload || clip.muted) return false;
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
 * Clicking the ruler seeks; clips, transitions and markers are selected by click or keyboard;
 * dragging a clip moves it, dragging its edges trims it and dragging a marker moves it (snapped
 * to frames, committed on release); uploads dropped from the media bin land where they are
 * dropped. Only the clips and ticks within a few viewport widths of the scroll position are
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
  const frame = 1 / c.canvas.fps;
  const end = Math.max(timelineEnd(c), props.playhead) + 5;
  const width = Math.ceil(end * pps);
  const step = tickStep(pps);
  const ticks: number[] = [];
  for (let i = Math.floor(win.from / step); i * step <= Math.min(end, win.to); i++)
    ticks.push(Math.round(i * step * 1000) / 1000);
  const snap = (dx: number) => Math.round(dx / pps / frame) * frame;
  const markers = c.markers ?? [];
  const warnings = c.warnings;
  const missing = useMemo(() => new Set((warnings ?? []).map((w) => w.clipId)), [warnings]);
  const labelRoom = useMemo(() => markerLabelRoom(markers, pps), [markers, pps]);

  /**
   * Recomputes the drawn window from the scroll position. While it stays the same (most scroll
   * events) nothing is scheduled at all: the comparison is with a ref, not inside a state update.
   * The viewport's width comes from the resize observer, so a scroll event reads no layout but
   * the scroll offset.
   */
  const shown = useRef(win);
  const viewport = useRef(0);
  const syncWindow = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
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
  // Stable, so that a playhead move or a drag re-renders only the blocks whose props changed.
  const startDrag = useCallback((e: React.PointerEvent, kind: Drag["kind"], id: string, mode: DragMode) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag({ kind, id, mode, x0: e.clientX, dx: 0 });
  }, []);
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
        {c.tracks.map((track, ti) => (
          <div className="track-name" key={track.id}>
            {track.name ?? `Track ${ti + 1}`}
            <small>{trackContent(track)}</small>
          </div>
        ))}
        {props.onDropNewTrack && <div className="track-name new-track">New track</div>}
      </div>
      <div
        className="timeline"
        ref={scroller}
        onPointerMove={(e) => drag && setDrag({ ...drag, dx: e.clientX - drag.x0 })}
        onPointerUp={() => {
          if (!drag) return;
          setDrag(null);
          const delta = snap(drag.dx);
          if (delta === 0) return;
          if (drag.kind === "marker") props.onMarkerMove(drag.id, delta);
          else props.onDragEnd(drag.id, drag.mode, delta);
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
              onPointerDown={(e) => props.onSeek(timeAt(e.clientX))}
            >
              {/* One positioned row of equal-width ticks: a tick is no layer of its own to lay out, paint or hit-test. */}
              <div
                className="ticks"
                style={{ left: (ticks[0] ?? 0) * pps, "--tick": `${step * pps}px` } as React.CSSProperties}
              >
                {ticks.map((t) => (
                  <span key={t} className="tick">
                    {formatRulerTime(t)}
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
                if (e.dataTransfer.types.includes(UPLOAD_DRAG_TYPE)) e.preventDefault();
              }}
              onDrop={(e) => {
                const id = e.dataTransfer.getData(UPLOAD_DRAG_TYPE);
                if (!id) return;
                e.preventDefault();
                props.onDropUpload(ti, id, Math.round(timeAt(e.clientX) / frame) * frame);
              }}
            >
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
              onDrop={(id, x) => props.onDropNewTrack?.(id, Math.round(timeAt(x) / frame) * frame)}
            />
          )}
          <div
            className="playhead"
            style={{ transform: `translateX(${props.playhead * pps}px)` }}
            aria-hidden="true"
          />
        </div>
      </div>
    </div>
  );
}
