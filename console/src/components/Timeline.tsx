import { memo, useCallback, useRef, useState } from "react";
import type { Clip, Composition, Upload } from "../api/client";
import { clipLabel, timelineEnd } from "../edits";

/** MIME type of an upload dragged from the media bin onto a track. */
export const UPLOAD_DRAG_TYPE = "application/x-cutroom-upload";

/** Width of the track name column, pixels. */
const HEADER_PX = 96;
/** Width of the grab zone at each end of a clip block, pixels. */
const EDGE_PX = 8;

type Drag = { clipId: string; mode: "move" | "start" | "end"; x0: number; dx: number };

export interface TimelineProps {
  composition: Composition;
  uploads: ReadonlyMap<string, Upload>;
  /** Zoom: pixels per second. */
  pxPerSecond: number;
  playhead: number;
  selectedClipId: string | null;
  onSelect: (clipId: string | null) => void;
  onSeek: (t: number) => void;
  /** A finished drag: `delta` seconds (frame-snapped) of a move or of the start or end edge. */
  onDragEnd: (clipId: string, mode: Drag["mode"], delta: number) => void;
  onDropUpload: (track: number, uploadId: string, start: number) => void;
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

const ClipBlock = memo(function ClipBlock(props: {
  clip: Clip;
  trackKind: string;
  upload: Upload | undefined;
  pxPerSecond: number;
  selected: boolean;
  drag: Drag | null;
  onPointerDown: (e: React.PointerEvent, clipId: string, mode: Drag["mode"]) => void;
  onSelect: (clipId: string) => void;
}) {
  const { clip, pxPerSecond: pps, drag } = props;
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
  const label = clipLabel(clip, props.upload?.name);
  const poster = props.upload?.posterUrl ?? (props.upload?.type === "image" ? props.upload.url : null);
  const color = clip.asset.type === "color" ? clip.asset.color : undefined;
  return (
    <button
      type="button"
      className={`clip ${clip.asset.type}${props.selected ? " selected" : ""}`}
      style={{ left, width, ...(color ? { background: color } : {}) }}
      aria-label={`Clip ${label}, ${clip.start.toFixed(2)} to ${(clip.start + clip.duration).toFixed(2)} s`}
      aria-pressed={props.selected}
      data-clip-id={clip.id}
      onClick={() => props.onSelect(clip.id)}
      onPointerDown={(e) => {
        const rect = e.currentTarget.getBoundingClientRect();
        const x = e.clientX - rect.left;
        props.onPointerDown(e, clip.id, x < EDGE_PX ? "start" : x > rect.width - EDGE_PX ? "end" : "move");
      }}
    >
      {clip.transition && (
        <span
          className="transition"
          title={`${clip.transition.type} ${clip.transition.duration} s`}
          aria-hidden="true"
        />
      )}
      {poster && width > 40 && <img src={poster} alt="" loading="lazy" draggable={false} />}
      <span className="name">{label}</span>
      <span className="edge start" aria-hidden="true" />
      <span className="edge end" aria-hidden="true" />
    </button>
  );
});

/**
 * The timeline drawn to scale: a time ruler with markers, one row per track, each clip a
 * block placed at its start and as wide as its duration (name and poster inside), transitions
 * at clip starts, and the playhead. Clicking the ruler seeks; clips are selected by click or
 * keyboard; dragging a clip moves it and dragging its edges trims it (snapped to frames,
 * committed on release); uploads dropped from the media bin land where they are dropped.
 */
export function Timeline(props: TimelineProps) {
  const { composition: c, pxPerSecond: pps } = props;
  const [drag, setDrag] = useState<Drag | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const frame = 1 / c.canvas.fps;
  const end = Math.max(timelineEnd(c), props.playhead) + 5;
  const width = Math.ceil(end * pps);
  const step = tickStep(pps);
  const ticks: number[] = [];
  for (let t = 0; t <= end; t += step) ticks.push(Math.round(t * 1000) / 1000);
  const snap = (dx: number) => Math.round(dx / pps / frame) * frame;

  /** Timeline seconds at a client x coordinate (inside the scrolled area). */
  const timeAt = (clientX: number) => {
    const el = scroller.current;
    if (!el) return 0;
    const rect = el.getBoundingClientRect();
    return Math.max(0, (clientX - rect.left + el.scrollLeft - HEADER_PX) / pps);
  };

  // Stable, so that a playhead move or a drag re-renders only the blocks whose props changed.
  const startDrag = useCallback((e: React.PointerEvent, clipId: string, mode: Drag["mode"]) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag({ clipId, mode, x0: e.clientX, dx: 0 });
  }, []);

  return (
    <div
      className="timeline"
      ref={scroller}
      onPointerMove={(e) => drag && setDrag({ ...drag, dx: e.clientX - drag.x0 })}
      onPointerUp={() => {
        if (!drag) return;
        setDrag(null);
        const delta = snap(drag.dx);
        if (delta !== 0) props.onDragEnd(drag.clipId, drag.mode, delta);
      }}
      onPointerCancel={() => setDrag(null)}
    >
      <div className="timeline-inner" style={{ width: width + HEADER_PX }}>
        <div
          className="ruler"
          style={{ marginLeft: HEADER_PX, width }}
          role="slider"
          tabIndex={0}
          aria-label="Playhead position"
          aria-valuemin={0}
          aria-valuemax={Math.round(end)}
          aria-valuenow={Math.round(props.playhead * 100) / 100}
          aria-valuetext={`${props.playhead.toFixed(2)} seconds`}
          onPointerDown={(e) => props.onSeek(timeAt(e.clientX))}
        >
          {ticks.map((t) => (
            <span key={t} className="tick" style={{ left: t * pps }}>
              {formatRulerTime(t)}
            </span>
          ))}
          {(c.markers ?? []).map((m) => (
            <span key={m.id} className="marker" style={{ left: m.time * pps }} title={m.label}>
              {m.label}
            </span>
          ))}
        </div>
        {c.tracks.map((track, ti) => (
          <div className="track" key={track.id}>
            <div className="track-name" style={{ width: HEADER_PX }}>
              {track.name ?? `Track ${ti + 1}`}
              <small>{track.kind}</small>
            </div>
            {/* biome-ignore lint/a11y/useSemanticElements: a track row is a group of clip buttons, not a form fieldset */}
            <div
              className="lane"
              role="group"
              aria-label={`Track ${ti + 1}: ${track.name ?? track.kind}`}
              style={{ width }}
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
              {track.clips.map((clip) => (
                <ClipBlock
                  key={clip.id}
                  clip={clip}
                  trackKind={track.kind}
                  upload={
                    "uploadId" in clip.asset && clip.asset.uploadId
                      ? props.uploads.get(clip.asset.uploadId)
                      : undefined
                  }
                  pxPerSecond={pps}
                  selected={props.selectedClipId === clip.id}
                  drag={drag?.clipId === clip.id ? drag : null}
                  onPointerDown={startDrag}
                  onSelect={props.onSelect}
                />
              ))}
            </div>
          </div>
        ))}
        <div className="playhead" style={{ left: HEADER_PX + props.playhead * pps }} aria-hidden="true" />
      </div>
    </div>
  );
}
