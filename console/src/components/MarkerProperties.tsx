import type { Marker } from "../api/client";
import { NumberField, readNumber } from "./NumberField";
import { PropertiesForm } from "./PropertiesForm";

/**
 * The selected marker: its label and time. Applying calls `onApply` with the edited marker;
 * deleting removes it.
 */
export function MarkerProperties(props: {
  marker: Marker;
  version: number;
  onApply: (next: Marker) => void;
  onDelete: () => void;
}) {
  const { marker } = props;
  return (
    <PropertiesForm
      label="Marker properties"
      key={`${marker.id}@${props.version}`}
      onApply={(f) =>
        props.onApply({
          ...marker,
          label: String(f.get("label") ?? "").trim(),
          time: readNumber(f, "time") ?? marker.time,
        })
      }
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
        <NumberField label="Time (s)" name="time" value={marker.time} min={0} />
      </fieldset>
    </PropertiesForm>
  );
}
