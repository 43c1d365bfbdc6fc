/** What a labelled number input shows and accepts. */
export interface NumberSpec {
  /** The visible label, with its unit, e.g. "Duration (s)". */
  label: string;
  /** Form field name, read back with {@link readNumber}. */
  name: string;
  step?: number;
  min?: number;
  max?: number;
}

/**
 * A labelled number input of a form (uncontrolled: `value` is its starting value; empty means
 * "not set"). Steps of 0.01 unless `step` says otherwise.
 */
export function NumberField(props: NumberSpec & { value: number | undefined }) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type="number"
        inputMode="decimal"
        step={props.step ?? 0.01}
        min={props.min}
        max={props.max}
        defaultValue={props.value ?? ""}
      />
    </label>
  );
}

/** The number in form field `name`, or undefined when it is empty. */
export function readNumber(form: FormData, name: string): number | undefined {
  const v = String(form.get(name) ?? "").trim();
  return v === "" ? undefined : Number(v);
}
