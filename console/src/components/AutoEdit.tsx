import { useEffect, useState } from "react";
import type { ResponseBody } from "../../../clients/typescript/src/types.ts";
import { api, errorMessage, type Upload } from "../api/client";
import { Link } from "../router";
import { editorPath } from "./CompositionList";
import { Status } from "./Layout";

type Autoedit = ResponseBody<"/api/v1/autoedits/{id}", "get", 200>;
const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
/** How often a running auto-edit is read again, ms. */
const POLL_MS = 2000;

/**
 * The project page's auto-edit: pick a recording, ask for short clips; the job's candidates and
 * the compositions it builds (one version per step, open in the editor) appear as it goes.
 */
export function AutoEdit(props: { projectId: string; uploads: Upload[] | null; onDone: () => void }) {
  const videos = (props.uploads ?? []).filter((u) => u.type === "video" && u.media?.hasAudio);
  const [job, setJob] = useState<Autoedit | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { onDone } = props;

  useEffect(() => {
    if (!job || TERMINAL.has(job.status)) return;
    const timer = setTimeout(async () => {
      const { data } = await api.GET("/api/v1/autoedits/{id}", { params: { path: { id: job.id } } });
      if (data) setJob(data);
      if (data?.status === "succeeded") onDone();
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [job, onDone]);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(null);
    const { data, error } = await api.POST("/api/v1/autoedit", {
      body: {
        uploadIds: [String(f.get("upload"))],
        projectId: props.projectId,
        target: {
          aspectRatio: String(f.get("aspect")) as "9:16" | "1:1" | "16:9",
          maxDuration: Number(f.get("maxDuration")),
          count: Number(f.get("count")),
        },
        captions: f.get("captions") === "on",
      },
    });
    if (data) setJob(data);
    else setError(errorMessage(error));
  }

  if (videos.length === 0) return null;
  return (
    <section className="card" aria-labelledby="autoedit">
      <h2 id="autoedit">Auto-edit</h2>
      <p>Short clips from a recording, as compositions you can open and change step by step.</p>
      <form className="stack" onSubmit={submit}>
        <label>
          Recording{" "}
          <select name="upload">
            {videos.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Shape{" "}
          <select name="aspect" defaultValue="9:16">
            <option value="9:16">Vertical 9:16</option>
            <option value="1:1">Square 1:1</option>
            <option value="16:9">Landscape 16:9</option>
          </select>
        </label>
        <label>
          Longest clip (s) <input name="maxDuration" type="number" min={5} max={600} defaultValue={60} />
        </label>
        <label>
          Clips <input name="count" type="number" min={1} max={10} defaultValue={3} />
        </label>
        <label className="check">
          <input name="captions" type="checkbox" defaultChecked /> Captions from speech
        </label>
        <button type="submit" disabled={!!job && !TERMINAL.has(job.status)}>
          Make clips
        </button>
      </form>
      <Status message={error ?? job?.error?.message ?? null} kind="error" />
      {job && (
        <div aria-live="polite">
          <p>
            {job.status === "running"
              ? `${job.stage ?? "working"} ${Math.round((job.progress ?? 0) * 100)} %`
              : job.status}
          </p>
          <ol>
            {job.compositions.map((c) => (
              <li key={c.id}>
                <Link to={editorPath(props.projectId, c.id)}>
                  {job.candidates[c.candidate]?.title ?? c.id}
                </Link>{" "}
                <small>{c.steps.map((s) => s.summary).join(" · ")}</small>
              </li>
            ))}
          </ol>
          {job.skipped.length > 0 && <small>Not done: {job.skipped.map((s) => s.reason).join("; ")}</small>}
        </div>
      )}
    </section>
  );
}
