import type { ReactNode } from "react";

/**
 * A form of the editor's properties panel: its fields, then Apply and the other `actions`
 * (e.g. Delete), which stay in view at the bottom of the panel while the fields scroll. Give it
 * a `key` naming what it edits and the version, so that its fields start over from the new
 * values after every change. `onApply` gets the form's data.
 */
export function PropertiesForm(props: {
  /** The form's accessible name, e.g. "Clip properties". */
  label: string;
  onApply: (form: FormData) => void;
  actions: ReactNode;
  children: ReactNode;
}) {
  return (
    <form
      className="properties stack"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(new FormData(e.currentTarget));
      }}
    >
      {props.children}
      <div className="actions hbox">
        <button type="submit">Apply</button>
        {props.actions}
      </div>
    </form>
  );
}
