import { useState } from "react";
import type { Composition, PatchOperation } from "../api/client";
import { type ClipDraft, onFrame, overlayClipOps, type TextKind, textStyleFor } from "../tools";
import { styleFromForm, TextStyleFields } from "./TextStyleFields";

/** Seconds a new title lasts. */
const TEXT_SECONDS = 3;

/**
 * The Text tool: a title or a lower third added at the playhead, on a text track above the
 * picture (a new top track when the one there is busy). Its text and style stay editable: select
 * the clip on the timeline.
 */
export function TextTool(props: {
  composition: Composition;
  playhead: number;
  families: readonly string[];
  busy: boolean;
  onAdd: (label: string, ops: PatchOperation[]) => void;
}) {
  const [kind, setKind] = useState<TextKind>("title");
  const { canvas } = props.composition;
  const base = textStyleFor(kind, canvas.height);
  return (
    <form
      className="stack tool"
      aria-label="Add text"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const text = String(f.get("text") ?? "").trim();
        if (!text) return;
        const clip: ClipDraft = {
          name: text.slice(0, 60),
          start: onFrame(props.playhead, canvas.fps),
          duration: TEXT_SECONDS,
          asset: { type: "text", text, style: styleFromForm(f, base, canvas.height) },
        };
        props.onAdd(
          `Add ${kind === "title" ? "title" : "lower third"} "${clip.name}"`,
          overlayClipOps(props.composition, clip, "Text"),
        );
      }}
    >
      <fieldset className="segmented">
        <legend>Kind</legend>
        {(
          [
            ["title", "Title"],
            ["lower-third", "Lower third"],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="check">
            <input
              type="radio"
              name="kind"
              value={value}
              checked={kind === value}
              onChange={() => setKind(value)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <label>
        Text
        <textarea
          name="text"
          rows={2}
          required
          placeholder={kind === "title" ? "My holiday" : "Ana Silva · guide"}
        />
      </label>
      {/* A new kind starts its own style over. */}
      <TextStyleFields key={kind} style={base} families={props.families} />
      <p className="hint">
        Added at the playhead ({props.playhead.toFixed(2)} s) for {TEXT_SECONDS} s; select it on the timeline
        to change it.
      </p>
      <button type="submit" disabled={props.busy}>
        Add {kind === "title" ? "title" : "lower third"} at playhead
      </button>
    </form>
  );
}
