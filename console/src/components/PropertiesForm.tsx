import { type ReactNode, useEffect, useState } from "react";
import type { FieldErrors } from "../field-values";
import { FieldErrorsContext } from "./NumberField";

/**
 * A form of the editor's properties panel: its fields, then Apply and the other `actions`
 * (e.g. Delete), which stay in view at the bottom of the panel while the fields scroll. Give it
 * a `key` naming what it edits and the version, so that its fields start over from the new
 * values after every change. `onApply` gets the form's data; when it returns the fields that
 * cannot be applied (a non-empty map), nothing is applied: each of those fields shows why, and
 * the first of them gets the focus. Fields the server refused (`refused`) show its sentence the
 * same way.
 */
export function PropertiesForm(props: {
  /** The form's accessible name, e.g. "Clip properties". */
  label: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: forms that never refuse a field return nothing
  onApply: (form: FormData) => FieldErrors | undefined | void;
  actions: ReactNode;
  children: ReactNode;
  /** Fields the server refused in the last write of what this form edits, with its sentences. */
  refused?: FieldErrors;
}) {
  const [errors, setErrors] = useState<FieldErrors>(() => new Map());
  const { refused } = props;
  useEffect(() => {
    if (refused && refused.size > 0) setErrors(refused);
  }, [refused]);
  return (
    <form
      className="properties stack"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const found = props.onApply(new FormData(form)) ?? new Map<string, string>();
        setErrors(found);
        const first = found.keys().next();
        if (!first.done) {
          const el = form.elements.namedItem(first.value);
          if (el instanceof HTMLElement) el.focus();
        }
      }}
    >
      <FieldErrorsContext.Provider value={errors}>{props.children}</FieldErrorsContext.Provider>
      <div className="actions hbox">
        <button type="submit">Apply</button>
        {props.actions}
      </div>
    </form>
  );
}
