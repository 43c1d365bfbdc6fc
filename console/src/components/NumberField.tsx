import { createContext, useContext, useId } from "react";
import type { FieldErrors } from "../field-values";
import { formatTimecode } from "../timecode";

/** What a labelled number input shows and accepts. */
export interface NumberSpec {
  /** The visible label, with its unit, e.g. "Duration (s)". */
  label: string;
  /** Form field name, read back with {@link readNumber} or a `formReader`. */
  name: string;
  /** What ArrowUp and ArrowDown add or take away (default 0.01); typed values may be finer. */
  step?: number;
  min?: number;
  max?: number;
}

/** The sentences of the fields of the enclosing form that could not be applied, by field name. */
export const FieldErrorsContext = createContext<FieldErrors>(new Map());

/**
 * The input of a field and, under it, why its value cannot be applied (from the enclosing
 * form's {@link FieldErrorsContext}), tied to it by `aria-describedby` and `aria-invalid`.
 */
function Field(props: {
  label: string;
  name: string;
  defaultValue: string;
  placeholder?: string;
  inputMode: "decimal" | "text";
  onKeyDown?: (e: React.KeyboardEvent<HTMLInputElement>) => void;
}) {
  const error = useContext(FieldErrorsContext).get(props.name);
  const id = useId();
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type="text"
        inputMode={props.inputMode}
        autoComplete="off"
        spellCheck={false}
        placeholder={props.placeholder}
        defaultValue={props.defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onKeyDown={props.onKeyDown}
      />
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </label>
  );
}

/**
 * A labelled number input of a form (uncontrolled: `value` is its starting value; empty means
 * "not set"). A text input, not the browser's number input: it takes any value the editor
 * writes, however many decimals; the form checks `min` and `max` when applied and says why a
 * value cannot be applied next to the field. ArrowUp/ArrowDown step by `step` (default 0.01).
 */
export function NumberField(props: NumberSpec & { value: number | undefined }) {
  const step = props.step ?? 0.01;
  return (
    <Field
      label={props.label}
      name={props.name}
      inputMode="decimal"
      defaultValue={props.value === undefined ? "" : String(props.value)}
      onKeyDown={(e) => {
        if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
        const n = Number(e.currentTarget.value.replace(",", "."));
        if (!Number.isFinite(n)) return;
        e.preventDefault();
        let next = n + (e.key === "ArrowUp" ? step : -step);
        if (props.min !== undefined) next = Math.max(props.min, next);
        if (props.max !== undefined) next = Math.min(props.max, next);
        e.currentTarget.value = String(Math.round(next * 1e6) / 1e6);
      }}
    />
  );
}

/**
 * A labelled time input of a form: shows `value` seconds as timecode `m:ss.ff` at the canvas
 * rate `fps` and takes timecode, frames (`120f`) or seconds; read back with a `formReader`'s
 * `time`, which rounds to the frame grid and keeps an untouched value as it was.
 */
export function TimeField(props: { label: string; name: string; value: number | undefined; fps: number }) {
  return (
    <Field
      label={props.label}
      name={props.name}
      inputMode="text"
      placeholder="m:ss.ff"
      defaultValue={props.value === undefined ? "" : formatTimecode(props.value, props.fps)}
    />
  );
}

/** The number in form field `name`, or undefined when it is empty. */
export function readNumber(form: FormData, name: string): number | undefined {
  const v = String(form.get(name) ?? "").trim();
  return v === "" ? undefined : Number(v);
}
