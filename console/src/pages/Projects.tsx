import { useEffect, useState } from "react";
import { api, errorMessage, type Generation, type Schemas } from "../api/client";
import { Layout, Status } from "../components/Layout";
import { formatTime } from "../format";
import { Link, navigate } from "../router";

/** Generated images and videos made outside any project (e.g. through the API without `projectId`). */
function LooseGenerations() {
  const [list, setList] = useState<Generation[]>([]);
  useEffect(() => {
    api
      .GET("/api/v1/generations", {
        params: { query: { projectId: "none", status: "succeeded", limit: 25 } },
      })
      .then(({ data }) => data && setList(data.data))
      .catch(() => setList([]));
  }, []);
  const outputs = list.flatMap((g) => g.outputs.map((u) => ({ u, g })));
  if (outputs.length === 0) return null;
  return (
    <section className="card" aria-labelledby="loose">
      <h2 id="loose">Generated outside any project</h2>
      <ul className="plain outputs">
        {outputs.map(({ u, g }) => (
          <li key={u.id}>
            {u.type === "image" ? (
              <img src={u.url} alt={`Generated: ${g.prompt}`} loading="lazy" width={200} />
            ) : (
              <a href={u.url}>{u.name}</a>
            )}
            <small>
              {g.prompt} · {formatTime(g.createdAt)}
            </small>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The account's projects, a form to create one, and generations made outside any project. */
export function ProjectsPage() {
  const [projects, setProjects] = useState<Schemas["Project"][] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .GET("/api/v1/projects", { params: { query: { limit: 100 } } })
      .then(({ data, error }) => {
        if (data) setProjects(data.data);
        else setError(errorMessage(error));
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  }, []);

  async function create(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const { data, error } = await api.POST("/api/v1/projects", { body: { name: String(form.get("name")) } });
    if (data) navigate(`/console/projects/${data.id}`);
    else setError(errorMessage(error));
  }

  return (
    <Layout title="Projects">
      <form onSubmit={create} className="card inline-form">
        <label>
          Project name
          <input name="name" required maxLength={200} placeholder="e.g. Launch video" />
        </label>
        <button type="submit">Create project</button>
      </form>
      <Status message={error} kind="error" />
      {projects === null ? (
        <p>Loading…</p>
      ) : projects.length === 0 ? (
        <p>No projects yet. Create one to upload media.</p>
      ) : (
        <ul className="plain cards">
          {projects.map((p) => (
            <li key={p.id} className="card">
              <Link to={`/console/projects/${p.id}`}>{p.name}</Link>
              <small>Created {formatTime(p.createdAt)}</small>
            </li>
          ))}
        </ul>
      )}
      <LooseGenerations />
    </Layout>
  );
}
