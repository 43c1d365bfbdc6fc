import { useCallback, useEffect, useState } from "react";
import { api, type Composition, type CompositionInput, errorMessage, type Upload } from "../api/client";
import { CANVAS_PRESETS, compositionFromUploads, emptyComposition } from "../compose";
import { formatTime } from "../format";
import { Link, navigate } from "../router";
import { Status } from "./Layout";

/** The compositions of a project (GET /api/compositions?projectId=…), reloaded when `refreshKey` changes. */
export function useCompositions(projectId: string, refreshKey = 0) {
  const [list, setList] = useState<Composition[] | null>(null);
  const reload = useCallback(async () => {
    const { data } = await api.GET("/api/compositions", { params: { query: { projectId, limit: 100 } } });
    if (data) setList(data.data);
  }, [projectId]);
  useEffect(() => {
    void refreshKey;
    void reload();
  }, [reload, refreshKey]);
  return { list, reload };
}

/** Composition editor address. */
export const editorPath = (projectId: string, compositionId: string) =>
  `/console/projects/${projectId}/compositions/${compositionId}`;

/**
 * The project's compositions with links to the editor, and ways to start one: empty at a common
 * size, or from the selected uploads one after another.
 */
export function CompositionList(props: {
  projectId: string;
  selected: Upload[];
  onClearSelection: () => void;
}) {
  const { list } = useCompositions(props.projectId);
  const [error, setError] = useState<string | null>(null);

  async function create(body: CompositionInput) {
    const { data, error } = await api.POST("/api/compositions", { body });
    if (data) navigate(editorPath(props.projectId, data.id));
    else setError(errorMessage(error));
  }

  return (
    <section className="card" aria-labelledby="compositions">
      <h2 id="compositions">Compositions</h2>
      {list === null ? (
        <p>Loading…</p>
      ) : list.length === 0 ? (
        <p>No compositions yet.</p>
      ) : (
        <ul className="plain list">
          {list.map((c) => (
            <li key={c.id}>
              <Link to={editorPath(props.projectId, c.id)}>{c.name}</Link>{" "}
              <small>
                {c.canvas.width}×{c.canvas.height} ·{" "}
                {clipCount(c.tracks.reduce((n, t) => n + t.clips.length, 0))}· v{c.version} · edited{" "}
                {formatTime(c.updatedAt)}
              </small>
            </li>
          ))}
        </ul>
      )}
      <div className="hbox">
        {props.selected.length > 0 && (
          <button
            type="button"
            onClick={() => {
              void create(
                compositionFromUploads(
                  props.projectId,
                  `Cut of ${props.selected.length} clips`,
                  props.selected,
                ),
              );
              props.onClearSelection();
            }}
          >
            New composition from {props.selected.length} selected
          </button>
        )}
        {CANVAS_PRESETS.map((p) => (
          <button
            key={p.label}
            type="button"
            className="secondary"
            onClick={() => create(emptyComposition(props.projectId, "Untitled", p.width, p.height))}
          >
            New {p.label}
          </button>
        ))}
      </div>
      <Status message={error} kind="error" />
    </section>
  );
}

/** "1 clip", "3 clips". */
function clipCount(n: number): string {
  return `${n} ${n === 1 ? "clip" : "clips"}`;
}
