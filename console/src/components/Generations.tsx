import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type Generation, type Schemas } from "../api/client";
import { formatTime } from "../format";
import { Status } from "./Layout";
import { retryAfterSeconds } from "./RenderList";

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
const IMAGE_SIZES = [
  ["landscape_16_9", "Landscape 16:9"],
  ["landscape_4_3", "Landscape 4:3"],
  ["square_hd", "Square"],
  ["portrait_16_9", "Portrait 9:16"],
  ["portrait_4_3", "Portrait 3:4"],
] as const;

/** Follows a generation until it ends, polling at its `Retry-After`. */
function usePolledGeneration(g: Generation, onChange: (g: Generation) => void): void {
  const { id, status } = g;
  useEffect(() => {
    if (TERMINAL.has(status)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = (delay: number) => {
      timer = setTimeout(async () => {
        const { data, response } = await api.GET("/api/v1/generations/{id}", { params: { path: { id } } });
        if (stopped) return;
        if (data) onChange(data);
        if (data && !TERMINAL.has(data.status)) poll(retryAfterSeconds(response) * 1000);
      }, delay);
    };
    poll(1000);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, status, onChange]);
}

function ModelLine(props: { models: Schemas["Models"] | null; kind: "image" | "video" }) {
  const list = props.models?.[props.kind] ?? [];
  const m = list.find((x) => x.default && x.available) ?? list.find((x) => x.available);
  if (!m) return <small>Model: loading…</small>;
  return (
    <small className="model">
      Model: {m.name}{" "}
      {m.provider === "offline" ? "(offline: a labelled placeholder, not AI output)" : "(online)"}
    </small>
  );
}

function AnimateForm(props: { projectId: string; imageId: string; onStarted: (g: Generation) => void }) {
  const [error, setError] = useState<string | null>(null);
  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const { data, error } = await api.POST("/api/v1/generate/video", {
      body: {
        prompt: String(f.get("prompt")),
        imageUrl: props.imageId,
        duration: String(f.get("duration")) as "4s" | "6s" | "8s",
        resolution: String(f.get("resolution")) as "720p" | "1080p",
        projectId: props.projectId,
      },
    });
    if (data) props.onStarted(data);
    else setError(errorMessage(error));
  }
  return (
    <form onSubmit={submit} className="stack animate" aria-label="Animate image">
      <label>
        Motion prompt
        <input name="prompt" required maxLength={2000} defaultValue="Slow push-in" />
      </label>
      <div className="hbox">
        <label>
          Length
          <select name="duration" defaultValue="4s">
            <option value="4s">4 s</option>
            <option value="6s">6 s</option>
            <option value="8s">8 s</option>
          </select>
        </label>
        <label>
          Resolution
          <select name="resolution" defaultValue="720p">
            <option value="720p">720p</option>
            <option value="1080p">1080p</option>
          </select>
        </label>
      </div>
      <button type="submit">Start animation</button>
      <Status message={error} kind="error" />
    </form>
  );
}

function GenerationItem(props: {
  g: Generation;
  projectId: string;
  onChange: (g: Generation) => void;
  onStarted: (g: Generation) => void;
}) {
  const { g } = props;
  const [animating, setAnimating] = useState<string | null>(null);
  usePolledGeneration(g, props.onChange);
  return (
    <li className="card generation" aria-label={`${g.kind} generation: ${g.prompt}`}>
      <div className="hbox">
        <strong>{g.kind === "image" ? "Image" : "Video"}</strong>
        <span className={`badge ${g.status}`}>{g.status}</span>
        <small>
          {g.model.id}
          {g.model.offline ? " (offline placeholder)" : ""} · {formatTime(g.createdAt)}
        </small>
      </div>
      <p className="break">{g.prompt}</p>
      {!TERMINAL.has(g.status) && (
        <progress
          max={100}
          value={g.progress == null ? undefined : Math.round(g.progress * 100)}
          aria-label={`Progress of ${g.kind} generation`}
        />
      )}
      {g.error && (
        <p className="error">
          <code>{g.error.code}</code> {g.error.message}
        </p>
      )}
      <ul className="plain outputs">
        {g.outputs.map((u) => (
          <li key={u.id}>
            {u.type === "image" ? (
              <img src={u.url} alt={`Generated: ${g.prompt}`} />
            ) : (
              // biome-ignore lint/a11y/useMediaCaption: generated clips carry no caption track
              <video
                src={u.url}
                controls
                preload="metadata"
                poster={u.posterUrl ?? undefined}
                aria-label={`Generated video: ${g.prompt}`}
              />
            )}
            {u.type === "image" && (
              <button
                type="button"
                className="secondary"
                onClick={() => setAnimating(animating === u.id ? null : u.id)}
              >
                Animate
              </button>
            )}
            {animating === u.id && (
              <AnimateForm
                projectId={props.projectId}
                imageId={u.id}
                onStarted={(next) => {
                  setAnimating(null);
                  props.onStarted(next);
                }}
              />
            )}
          </li>
        ))}
      </ul>
    </li>
  );
}

/**
 * Generate images into a project (prompt, size, count; results become uploads), animate a
 * generated image, and follow every generation of the project to its end.
 */
export function Generations(props: { projectId: string; onOutputs: () => void }) {
  const [list, setList] = useState<Generation[] | null>(null);
  const [models, setModels] = useState<Schemas["Models"] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { projectId, onOutputs } = props;

  useEffect(() => {
    void api.GET("/api/v1/generate/models").then(({ data }) => data && setModels(data));
    api
      .GET("/api/v1/generations", { params: { query: { projectId, limit: 25 } } })
      .then(({ data, error }) => {
        if (data) setList(data.data);
        else setError(errorMessage(error));
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  }, [projectId]);

  const update = useCallback(
    (next: Generation) => {
      setList((l) => l?.map((g) => (g.id === next.id ? next : g)) ?? null);
      if (next.status === "succeeded") onOutputs();
    },
    [onOutputs],
  );
  const add = (g: Generation) => {
    setList((l) => [g, ...(l ?? [])]);
    if (g.status === "succeeded") onOutputs();
  };

  async function generate(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const { data, error } = await api.POST("/api/v1/generate/image", {
      body: {
        prompt: String(f.get("prompt")),
        imageSize: String(f.get("size")) as (typeof IMAGE_SIZES)[number][0],
        numImages: Number(f.get("count")),
        projectId,
      },
    });
    setBusy(false);
    if (data) add(data);
    else setError(errorMessage(error));
  }

  return (
    <section className="card" aria-labelledby="generate">
      <h2 id="generate">Generate</h2>
      <form onSubmit={generate} className="stack">
        <label>
          Prompt
          <textarea
            name="prompt"
            required
            maxLength={2000}
            rows={2}
            placeholder="A lighthouse on a cliff at dusk"
          />
        </label>
        <div className="hbox">
          <label>
            Image size
            <select name="size" defaultValue="landscape_16_9">
              {IMAGE_SIZES.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <label>
            Count
            <select name="count" defaultValue="1">
              {[1, 2, 3, 4].map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy}>
            {busy ? "Generating…" : "Generate images"}
          </button>
        </div>
        <ModelLine models={models} kind="image" />
      </form>
      <Status message={error} kind="error" />
      <h3>Generations of this project</h3>
      {list === null ? (
        <p>Loading…</p>
      ) : list.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ul className="plain generations">
          {list.map((g) => (
            <GenerationItem key={g.id} g={g} projectId={projectId} onChange={update} onStarted={add} />
          ))}
        </ul>
      )}
    </section>
  );
}
