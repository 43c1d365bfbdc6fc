import { useCallback, useEffect, useState } from "react";
import type { ResponseBody } from "../../../clients/typescript/src/types.ts";
import { api, errorMessage } from "../api/client";
import { Layout, Status } from "../components/Layout";
import { formatTime } from "../format";

type Endpoint = ResponseBody<"/api/v1/webhooks/{id}", "get", 200>;
type Delivery = ResponseBody<"/api/v1/webhooks/{id}/deliveries", "get", 200>["data"][number];
type EventType = Endpoint["events"][number];

const EVENTS: EventType[] = [
  "render.succeeded",
  "render.failed",
  "render.cancelled",
  "generation.succeeded",
  "generation.failed",
  "upload.created",
];

function Deliveries(props: { endpoint: Endpoint; refreshKey: number }) {
  const [list, setList] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = props.endpoint.id;
  const load = useCallback(async () => {
    const { data, error } = await api.GET("/api/v1/webhooks/{id}/deliveries", {
      params: { path: { id }, query: { limit: 25 } },
    });
    if (data) setList(data.data);
    else setError(errorMessage(error));
  }, [id]);
  useEffect(() => {
    void props.refreshKey;
    void load();
    const timer = setInterval(() => document.visibilityState === "visible" && void load(), 3000);
    return () => clearInterval(timer);
  }, [load, props.refreshKey]);

  async function redeliver(d: Delivery) {
    const { error } = await api.POST("/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
      params: { path: { id, deliveryId: d.id } },
    });
    if (error) setError(errorMessage(error));
    await load();
  }

  if (list === null) return <p>Loading deliveries…</p>;
  return (
    <>
      <Status message={error} kind="error" />
      {list.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="responsive">
            <caption className="visually-hidden">Deliveries to {props.endpoint.url}</caption>
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th>Tries</th>
                <th>Last answer</th>
                <th>Last tried</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.id}>
                  <td data-label="Event">{d.eventType}</td>
                  <td data-label="Status">{d.status}</td>
                  <td data-label="Tries">{d.tries}</td>
                  <td data-label="Last answer">
                    {d.lastResponseStatus ?? "—"}
                    {d.lastLatencyMs != null && ` · ${d.lastLatencyMs} ms`}
                    {d.lastError && ` · ${d.lastError}`}
                  </td>
                  <td data-label="Last tried">{formatTime(d.lastTriedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => redeliver(d)}
                      aria-label={`Redeliver ${d.eventType} ${d.id}`}
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function EndpointCard(props: { endpoint: Endpoint; onChange: (e: Endpoint | null) => void }) {
  const e = props.endpoint;
  const [secret, setSecret] = useState<string | null>(null);
  const [message, setMessage] = useState<{ text: string; kind: "ok" | "error" } | null>(null);
  const [refreshKey, setRefreshKey] = useState(0);
  const path = { params: { path: { id: e.id } } };

  async function setEnabled(enabled: boolean) {
    const status = enabled ? "enabled" : "disabled";
    const { data, error } = await api.PATCH("/api/v1/webhooks/{id}", { ...path, body: { status } });
    if (data) props.onChange(data);
    else setMessage({ text: errorMessage(error), kind: "error" });
  }
  async function rotate() {
    const { data, error } = await api.POST("/api/v1/webhooks/{id}/rotate-secret", path);
    if (data) {
      setSecret(data.secret);
      setMessage({ text: "New secret made: the old one stops working now.", kind: "ok" });
    } else setMessage({ text: errorMessage(error), kind: "error" });
  }
  async function test() {
    const { data, error } = await api.POST("/api/v1/webhooks/{id}/test", path);
    if (data) setMessage({ text: "Test event queued.", kind: "ok" });
    else setMessage({ text: errorMessage(error), kind: "error" });
    setRefreshKey((k) => k + 1);
  }
  async function remove() {
    if (!window.confirm(`Delete the endpoint ${e.url}?`)) return;
    const { response, error } = await api.DELETE("/api/v1/webhooks/{id}", path);
    if (response.ok) props.onChange(null);
    else setMessage({ text: errorMessage(error), kind: "error" });
  }

  return (
    <li className="card" aria-label={`Endpoint ${e.url}`}>
      <h2 className="break">{e.url}</h2>
      <p>
        <span className={`badge ${e.status === "enabled" ? "succeeded" : "failed"}`}>{e.status}</span>{" "}
        {e.disabledReason && <small>{e.disabledReason} · </small>}
        <small>
          {e.events.join(", ")} · {e.consecutiveFailures} failures in a row
        </small>
      </p>
      {secret && (
        <p className="secret">
          Signing secret (shown once): <code data-testid="webhook-secret">{secret}</code>
        </p>
      )}
      <div className="hbox">
        <button type="button" className="secondary" onClick={() => setEnabled(e.status !== "enabled")}>
          {e.status === "enabled" ? "Disable" : "Enable"}
        </button>
        <button type="button" className="secondary" onClick={test}>
          Send test event
        </button>
        <button type="button" className="secondary" onClick={rotate}>
          Rotate secret
        </button>
        <button type="button" className="danger" onClick={remove}>
          Delete endpoint
        </button>
      </div>
      <Status message={message?.text ?? null} kind={message?.kind} />
      <h3>Delivery log</h3>
      <Deliveries endpoint={e} refreshKey={refreshKey} />
    </li>
  );
}

/** Webhook endpoints: add, subscribe, enable or disable, rotate the secret, test, and the delivery log. */
export function WebhooksPage() {
  const [list, setList] = useState<Endpoint[] | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api
      .GET("/api/v1/webhooks", { params: { query: { limit: 100 } } })
      .then(({ data, error }) => {
        if (data) setList(data.data);
        else setError(errorMessage(error));
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  }, []);

  async function create(ev: React.FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    const f = new FormData(ev.currentTarget);
    const events = EVENTS.filter((t) => f.get(t) === "on");
    const { data, error } = await api.POST("/api/v1/webhooks", {
      body: { url: String(f.get("url")), events: events as [EventType, ...EventType[]] },
    });
    if (!data) {
      setError(errorMessage(error));
      return;
    }
    setError(null);
    setCreated(data.secret);
    const { secret: _secret, ...endpoint } = data;
    setList((l) => [endpoint, ...(l ?? [])]);
  }

  return (
    <Layout title="Webhooks">
      <form onSubmit={create} className="card stack" aria-label="Add an endpoint">
        <label>
          Endpoint URL
          <input
            name="url"
            type="url"
            required
            maxLength={2048}
            placeholder="https://example.com/hooks/cutroom"
          />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((t) => (
            <label key={t} className="inline">
              <input type="checkbox" name={t} defaultChecked={t.startsWith("render.")} /> {t}
            </label>
          ))}
        </fieldset>
        <button type="submit">Add endpoint</button>
        {created && (
          <p className="secret">
            Signing secret (shown once; verify deliveries with it): <code>{created}</code>
          </p>
        )}
      </form>
      <Status message={error} kind="error" />
      {list === null ? (
        <p>Loading…</p>
      ) : list.length === 0 ? (
        <p>No endpoints yet.</p>
      ) : (
        <ul className="plain">
          {list.map((e) => (
            <EndpointCard
              key={e.id}
              endpoint={e}
              onChange={(next) =>
                setList((l) =>
                  next
                    ? (l ?? []).map((x) => (x.id === e.id ? next : x))
                    : (l ?? []).filter((x) => x.id !== e.id),
                )
              }
            />
          ))}
        </ul>
      )}
    </Layout>
  );
}
