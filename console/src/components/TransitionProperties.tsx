import { TRANSITION_TYPES } from "../../../src/domain/composition/value-lists.ts";
import type { Transition } from "../api/client";
import { NumberField, readNumber } from "./NumberField";
import { PropertiesForm } from "./PropertiesForm";

/** Seconds a new transition lasts. */
export const DEFAULT_TRANSITION_SECONDS = 0.5;

/**
 * The type and duration inputs of a transition (`transition.type`, `transition.duration`), read
 * back by {@link transitionFromForm}. With `optional`, the type menu offers "None".
 */
export function TransitionFields(props: {
  transition: Transition | undefined;
  optional: boolean;
  /** The duration input's label. */
  durationLabel: string;
}) {
  const { transition } = props;
  return (
    <>
      <label>
        Type
        <select name="transition.type" defaultValue={transition?.type ?? ""}>
          {props.optional && <option value="">None</option>}
          {TRANSITION_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <NumberField
        label={props.durationLabel}
        name="transition.duration"
        value={transition?.duration}
        min={0.01}
        max={10}
      />
    </>
  );
}

/** The transition {@link TransitionFields} describe, or undefined for "None". */
export function transitionFromForm(f: FormData): Transition | undefined {
  const type = String(f.get("transition.type") ?? "");
  if (!type) return undefined;
  return {
    type: type as Transition["type"],
    duration: readNumber(f, "transition.duration") ?? DEFAULT_TRANSITION_SECONDS,
  };
}

/**
 * The selected transition: which cut it is on, its type and duration. Applying calls `onApply`
 * with the new transition; removing it leaves a hard cut.
 */
export function TransitionProperties(props: {
  transition: Transition;
  /** Labels of the clip before the cut (null at the start of a track) and of the clip after it. */
  from: string | null;
  into: string;
  version: number;
  onApply: (next: Transition) => void;
  onRemove: () => void;
}) {
  return (
    <PropertiesForm
      label="Transition properties"
      key={`${props.into}@${props.version}`}
      onApply={(f) => {
        const next = transitionFromForm(f);
        if (next) props.onApply(next);
      }}
      actions={
        <button type="button" className="danger" onClick={props.onRemove}>
          Remove transition
        </button>
      }
    >
      <p className="hint">
        {props.from ? `From ${props.from} into ${props.into}` : `Into ${props.into} (from the background)`},
        centred on the cut: half before it, half after.
      </p>
      <fieldset>
        <legend>Transition</legend>
        <TransitionFields transition={props.transition} optional={false} durationLabel="Duration (s)" />
      </fieldset>
    </PropertiesForm>
  );
}
