import { useState } from "react";
import { api, errorMessage, type Schemas } from "../api/client";
import { navigate } from "../router";
import { Status } from "./Layout";

type Project = Schemas["Project"];

/** Rename, describe and delete a project (with an explicit choice for what it holds). */
export function ProjectSettings(props: { project: Project; onChange: (p: Project) => void }) {
  const p = props.project;
  const [message, setMessage] = useState<{ text: string; kind: "ok" | "error" } | null>(null);
  const [held, setHeld] = useState<Record<string, number> | null>(null);

  async function save(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const { data, error } = await api.PATCH("/api/v1/projects/{projectId}", {
      params: { path: { projectId: p.id } },
      body: { name: String(form.get("name")), description: String(form.get("description")) },
    });
    if (data) {
      props.onChange(data);
      setMessage({ text: "Saved.", kind: "ok" });
    } else setMessage({ text: errorMessage(error), kind: "error" });
  }

  async function remove(contents?: "delete" | "keep") {
    const { response, error } = await api.DELETE("/api/v1/projects/{projectId}", {
      params: { path: { projectId: p.id }, query: contents ? { contents } : {} },
    });
    if (response.ok) {
      navigate("/console/projects");
      return;
    }
    const counts = (error as { error?: { contents?: Record<string, number> } } | undefined)?.error?.contents;
    if (response.status === 409 && counts && !contents) setHeld(counts);
    else setMessage({ text: errorMessage(error), kind: "error" });
  }

  return (
    <section className="card" aria-labelledby="project-settings">
      <h2 id="project-settings">Project</h2>
      <form onSubmit={save} className="stack">
        <label>
          Name
          <input name="name" required maxLength={200} defaultValue={p.name} key={`n${p.updatedAt}`} />
        </label>
        <label>
          Description
          <textarea
            name="description"
            maxLength={5000}
            rows={2}
            defaultValue={p.description}
            key={`d${p.updatedAt}`}
          />
        </label>
        <div className="hbox">
          <button type="submit">Save</button>
          <button type="button" className="danger" onClick={() => remove()}>
            Delete project
          </button>
        </div>
      </form>
      {held && (
        <div className="confirm" role="alertdialog" aria-labelledby="delete-q">
          <p id="delete-q">
            This project holds {held.uploads} uploads, {held.compositions} compositions and {held.generations}{" "}
            generations. Renders stay in your account either way.
          </p>
          <div className="hbox">
            <button type="button" className="danger" onClick={() => remove("delete")}>
              Delete project and everything in it
            </button>
            <button type="button" className="secondary" onClick={() => remove("keep")}>
              Delete project, keep its media
            </button>
            <button type="button" className="secondary" onClick={() => setHeld(null)}>
              Keep the project
            </button>
          </div>
        </div>
      )}
      <Status message={message?.text ?? null} kind={message?.kind} />
    </section>
  );
}
