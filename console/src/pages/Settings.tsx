import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type Schemas } from "../api/client";
import { Layout, Status } from "../components/Layout";
import { formatTime } from "../format";

type Me = Schemas["Me"];
type Session = Schemas["ConsoleSession"];

/** One selectable image model of `GET /api/v1/generate/models`. */
type ImageModel = Schemas["Models"]["image"][number];

/**
 * The image-model skill reads `GET /api/v1/generate/models` and writes
 * `PATCH /api/v1/me/settings`; if the models cannot be read, the select says so.
 */
function ImageModelSkill(props: { current: string | null }) {
  const [models, setModels] = useState<ImageModel[] | null | "missing">(null);
  const [value, setValue] = useState<string>(props.current ?? "");
  const [message, setMessage] = useState<{ text: string; kind: "ok" | "error" } | null>(null);
  useEffect(() => {
    api.GET("/api/v1/generate/models").then(
      // The offline placeholder runs when fal.ai is not configured; it is not a preference.
      (r) => setModels(r.data ? r.data.image.filter((m) => m.provider !== "offline") : "missing"),
      () => setModels("missing"),
    );
  }, []);
  useEffect(() => setValue(props.current ?? ""), [props.current]);

  async function change(id: string) {
    setValue(id);
    const r = await api.PATCH("/api/v1/me/settings", { body: { imageModel: id || null } });
    // Show what the server now uses (a cleared preference becomes the default model).
    if (r.data) setValue(r.data.user.settings.imageModel);
    setMessage(
      r.error
        ? { text: errorMessage(r.error, "The image model could not be saved."), kind: "error" }
        : { text: "Image model saved.", kind: "ok" },
    );
  }

  const missing = models === "missing";
  const offline = Array.isArray(models) && models.length > 0 && models.every((m) => !m.available);
  return (
    <div className="stack">
      <label>
        Image model
        <select
          value={value}
          disabled={missing || models === null}
          onChange={(e) => change(e.target.value)}
          aria-describedby="image-model-help"
        >
          {missing ? (
            <option value="">Not available on this server</option>
          ) : (
            <>
              <option value="">Default</option>
              {(models ?? []).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name} ({m.tier === "high" ? "best quality, default" : "faster"})
                </option>
              ))}
            </>
          )}
        </select>
      </label>
      <p id="image-model-help" className="hint">
        {missing
          ? "Image generation is not available on this server, so there is no model to choose."
          : offline
            ? "Used by image generation when a request names no model. This server has no fal.ai key: until it has one, images are offline placeholders."
            : "Used by image generation when a request names no model."}
      </p>
      <Status message={message?.text ?? null} kind={message?.kind} />
    </div>
  );
}

/** Settings: profile, password, sessions, skills (image model) and usage. */
export function SettingsPage() {
  const [me, setMe] = useState<Me | null>(null);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [pwMessage, setPwMessage] = useState<{ text: string; kind: "ok" | "error" } | null>(null);
  const [sessionMessage, setSessionMessage] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [m, s] = await Promise.all([api.GET("/api/v1/me"), api.GET("/api/v1/auth/sessions")]);
    if (m.data) setMe(m.data);
    if (s.data) setSessions(s.data.data);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function changePassword(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    const { error, response } = await api.POST("/api/v1/auth/password", {
      body: { currentPassword: String(form.get("current")), newPassword: String(form.get("new")) },
    });
    if (response.ok) {
      formEl.reset();
      setPwMessage({ text: "Password changed. Your other sessions were signed out.", kind: "ok" });
      await load();
    } else setPwMessage({ text: errorMessage(error), kind: "error" });
  }

  async function revokeOthers() {
    const { data } = await api.POST("/api/v1/auth/sessions/revoke-others");
    setSessionMessage(`Signed out ${data?.revoked ?? 0} other session(s).`);
    await load();
  }

  async function revokeOne(id: string) {
    await api.DELETE("/api/v1/auth/sessions/{sessionId}", { params: { path: { sessionId: id } } });
    setSessionMessage("Session signed out.");
    await load();
  }

  const rl = me?.rateLimit;
  return (
    <Layout title="Settings">
      <div className="grid-2">
        <section className="card" aria-labelledby="profile">
          <h2 id="profile">Profile</h2>
          {me && (
            <dl>
              <dt>Name</dt>
              <dd>{me.user.name}</dd>
              <dt>Email</dt>
              <dd>{me.user.email}</dd>
              <dt>Member since</dt>
              <dd>{formatTime(me.user.createdAt)}</dd>
            </dl>
          )}
        </section>
        <section className="card" aria-labelledby="usage">
          <h2 id="usage">Usage</h2>
          {me && rl && (
            <dl>
              <dt>Plan</dt>
              <dd>{me.user.plan}</dd>
              <dt>Calls today</dt>
              <dd>
                {rl.limit === null || rl.remaining === null ? (
                  "Unlimited plan (not counted)"
                ) : (
                  <>
                    {rl.limit - rl.remaining} of {rl.limit}
                    <progress max={rl.limit} value={rl.limit - rl.remaining} aria-label="Calls used today" />
                  </>
                )}
              </dd>
              <dt>Resets</dt>
              <dd>{formatTime(rl.resetAt)} (midnight UTC)</dd>
            </dl>
          )}
        </section>
        <section className="card" aria-labelledby="skills">
          <h2 id="skills">Skills</h2>
          <ImageModelSkill current={me?.user.settings.imageModel ?? null} />
        </section>
        <section className="card" aria-labelledby="password">
          <h2 id="password">Password</h2>
          <form onSubmit={changePassword} className="stack">
            <label>
              Current password
              <input name="current" type="password" autoComplete="current-password" required />
            </label>
            <label>
              New password
              <input name="new" type="password" autoComplete="new-password" minLength={10} required />
            </label>
            <button type="submit">Change password</button>
            <Status message={pwMessage?.text ?? null} kind={pwMessage?.kind} />
          </form>
        </section>
      </div>
      <section className="card" aria-labelledby="sessions">
        <h2 id="sessions">Sessions</h2>
        <ul className="plain">
          {sessions.map((s) => (
            <li key={s.id} className="row">
              <span>
                <strong>
                  {s.current ? "This session" : (s.userAgent ?? "Unknown browser").slice(0, 60)}
                </strong>
                <br />
                <small>
                  {s.ip ?? "?"} · signed in {formatTime(s.createdAt)} · last seen {formatTime(s.lastSeenAt)}
                </small>
              </span>
              {!s.current && (
                <button type="button" className="secondary" onClick={() => revokeOne(s.id)}>
                  Sign out
                </button>
              )}
            </li>
          ))}
        </ul>
        <button type="button" onClick={revokeOthers} disabled={sessions.length < 2}>
          Sign out all other sessions
        </button>
        <Status message={sessionMessage} />
      </section>
    </Layout>
  );
}
