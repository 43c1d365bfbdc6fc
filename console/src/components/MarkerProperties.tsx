import type { Marker } from "../api/client";
import { type FieldErrors, formReader } from "../field-values";
import { TimeField } from "./NumberField";
import { PropertiesForm } from "./PropertiesForm";

/**
 * The selected marker: its label and time. Applying calls `onApply` with the edited marker;
 * deleting removes it.
 */
export function MarkerProperties(props: {
  marker: Marker;
  version: number;
  /** The canvas frame rate (the time shows as timecode and rounds to its frames). */
  fps: number;
  onApply: (next: Marker) => void;
  onDelete: () => void;
}) {
  const { marker } = props;
  return (
    <PropertiesForm
      label="Marker properties"
      key={`${marker.id}@${props.version}`}
      onApply={(f): FieldErrors | undefined => {
        const read = formReader(f, props.fps);
        const time = read.time("time", { min: 0 }, marker.time);
        if (read.errors.size > 0) return read.errors;
        props.onApply({ ...marker, label: String(f.get("label") ?? "").trim(), time: time ?? marker.time });
      }}
      actions={
        <button type="button" className="danger" onClick={props.onDelete}>
          Delete marker
        </button>
      }
    >
      <label>
        Label
        <input name="label" defaultValue={marker.label} maxLength={500} />
      </label>
      <fieldset>
        <legend>Position</legend>
        <TimeField label="Time" name="time" value={marker.time} fps={props.fps} />
      </fieldset>
    </PropertiesForm>
  );
}
