import { TRANSITION_TYPES } from "../../../src/domain/composition/value-lists.ts";
import type { Transition } from "../api/client";
import { type FieldErrors, type FormReader, formReader } from "../field-values";
import { TimeField } from "./NumberField";
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
  /** The canvas frame rate (the duration shows as timecode and rounds to its frames). */
  fps: number;
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
      <TimeField
        label={props.durationLabel}
        name="transition.duration"
        value={transition?.duration}
        fps={props.fps}
      />
    </>
  );
}

/**
 * The transition {@link TransitionFields} describe, or undefined for "None"; `before` is the
 * transition the fields started from (an untouched duration keeps its value).
 */
export function transitionFromForm(
  f: FormData,
  read: FormReader,
  before?: Transition,
): Transition | undefined {
  const type = String(f.get("transition.type") ?? "");
  if (!type) return undefined;
  return {
    type: type as Transition["type"],
    duration:
      read.time("transition.duration", { min: 0.001, max: 10 }, before?.duration) ??
      DEFAULT_TRANSITION_SECONDS,
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
  /** The canvas frame rate. */
  fps: number;
  onApply: (next: Transition) => void;
  onRemove: () => void;
  /** The fields the server refused in the last edit of this transition, with its sentences. */
  refused?: FieldErrors;
}) {
  return (
    <PropertiesForm
      label="Transition properties"
      key={`${props.into}@${props.version}`}
      refused={props.refused}
      onApply={(f): FieldErrors | undefined => {
        const read = formReader(f, props.fps);
        const next = transitionFromForm(f, read, props.transition);
        if (read.errors.size > 0) return read.errors;
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
        <TransitionFields
          transition={props.transition}
          optional={false}
          durationLabel="Duration"
          fps={props.fps}
        />
      </fieldset>
    </PropertiesForm>
  );
}
