import type { Transition } from "../api/client";
import { TRANSITION_DRAG_TYPE } from "./Timeline";

/** The transitions offered for dragging, by their names in the editor's words. */
const OFFERED: ReadonlyArray<{ type: Transition["type"]; label: string }> = [
  { type: "dissolve", label: "Crossfade" },
  { type: "fadeblack", label: "Dip to black" },
  { type: "fadewhite", label: "Dip to white" },
  { type: "wipeleft", label: "Wipe left" },
  { type: "wiperight", label: "Wipe right" },
  { type: "slideleft", label: "Slide left" },
  { type: "circleopen", label: "Circle open" },
];

/** A transition type by its name in the editor (`wipeleft` → "Wipe left"), else the type itself. */
export function transitionLabel(type: string): string {
  return OFFERED.find((o) => o.type === type)?.label ?? type;
}

/**
 * Transitions to drag onto a cut of the timeline (the timeline puts it on the nearest cut, makes
 * two nearly touching clips touch and picks a length that fits). Pressing one instead (keyboard,
 * touch) adds it on the cut nearest the playhead: `onAdd`.
 */
export function TransitionStrip(props: { onAdd: (type: Transition["type"]) => void }) {
  return (
    <div className="transition-strip hbox" role="toolbar" aria-label="Transitions">
      <small>Transitions — drag onto a cut:</small>
      {OFFERED.map((t) => (
        <button
          key={t.type}
          type="button"
          className="secondary"
          draggable
          onDragStart={(e) => {
            e.dataTransfer.setData(TRANSITION_DRAG_TYPE, t.type);
            e.dataTransfer.effectAllowed = "copy";
          }}
          onClick={() => props.onAdd(t.type)}
          title={`Drag onto a cut, or press to add at the cut nearest the playhead (${t.type})`}
          aria-label={`${t.label}: drag onto a cut, or press to add it at the cut nearest the playhead`}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
