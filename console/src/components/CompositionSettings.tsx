import { useState } from "react";
import { CANVAS_FPS } from "../../../src/domain/composition/value-lists.ts";
import type { Composition, PatchOperation } from "../api/client";
import { ASPECTS, aspectSize, type CompositionSettings, settingsOps } from "../tools";

/**
 * The composition's settings, shown in the inspector when nothing is selected: name, canvas
 * size (with 16:9, 9:16 and 1:1 presets that keep the long edge), frame rate and background.
 * Applying sends the changed fields as one patch. Give it `key={version}` (its size starts over).
 */
export function CompositionSettingsForm(props: {
  composition: Composition;
  busy: boolean;
  onApply: (label: string, ops: PatchOperation[]) => void;
}) {
  const c = props.composition;
  const [size, setSize] = useState({ width: c.canvas.width, height: c.canvas.height });
  return (
    <form
      className="properties stack"
      aria-label="Composition settings"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const next: CompositionSettings = {
          name: String(f.get("name") ?? "").trim() || c.name,
          width: size.width,
          height: size.height,
          fps: Number(f.get("fps")) as CompositionSettings["fps"],
          background: String(f.get("background") ?? c.canvas.background),
        };
        props.onApply("Composition settings", settingsOps(c, next));
      }}
    >
      <label>
        Name
        <input name="name" defaultValue={c.name} maxLength={200} required />
      </label>
      <fieldset>
        <legend>Canvas</legend>
        <fieldset className="hbox aspects">
          <legend>Aspect</legend>
          {ASPECTS.map((a) => {
            const s = aspectSize(size, a.w, a.h);
            const on = s.width === size.width && s.height === size.height;
            return (
              <button
                key={a.label}
                type="button"
                className={on ? undefined : "secondary"}
                aria-pressed={on}
                onClick={() => setSize(s)}
              >
                {a.label}
              </button>
            );
          })}
        </fieldset>
        <label>
          Width (px)
          <input
            type="number"
            min={16}
            max={4096}
            step={2}
            value={size.width}
            onChange={(e) => setSize({ ...size, width: Number(e.target.value) })}
            required
          />
        </label>
        <label>
          Height (px)
          <input
            type="number"
            min={16}
            max={4096}
            step={2}
            value={size.height}
            onChange={(e) => setSize({ ...size, height: Number(e.target.value) })}
            required
          />
        </label>
        <label>
          Frame rate
          <select name="fps" defaultValue={String(c.canvas.fps)}>
            {CANVAS_FPS.map((fps) => (
              <option key={fps} value={String(fps)}>
                {fps} fps
              </option>
            ))}
          </select>
        </label>
        <label>
          Background
          <input name="background" type="color" defaultValue={c.canvas.background.slice(0, 7)} />
        </label>
      </fieldset>
      <div className="actions hbox">
        <button type="submit" disabled={props.busy}>
          Apply
        </button>
      </div>
    </form>
  );
}
