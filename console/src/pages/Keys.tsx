import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type Schemas } from "../api/client";
import { Layout, Status } from "../components/Layout";
import { formatTime } from "../format";

type ApiKey = Schemas["ApiKey"];

/** API keys: list, create (secret shown once, with a copy button), revoke with a confirmation. */
export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const load = useCallback(async () => {
    const { data, error } = await api.GET("/api/v1/keys");
    if (data) setKeys(data.data);
    else setError(errorMessage(error));
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function create(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    const scopes: ("read" | "write")[] = form.get("scope") === "write" ? ["read", "write"] : ["read"];
    const { data, error } = await api.POST("/api/v1/keys", {
      body: { name: String(form.get("name")), scopes },
    });
    if (!data) {
      setError(errorMessage(error));
      return;
    }
    setError(null);
    setCopied(false);
    setCreated({ name: data.key.name, secret: data.secret });
    formEl.reset();
    await load();
  }

  async function revoke(id: string) {
    const { error, response } = await api.DELETE("/api/v1/keys/{keyId}", { params: { path: { keyId: id } } });
    setConfirming(null);
    if (!response.ok) setError(errorMessage(error));
    else setStatus("Key revoked. It stops working on its next request.");
    await load();
  }

  return (
    <Layout title="API keys">
      <section className="card stack" aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <form onSubmit={create} className="stack">
          <label>
            Key name
            <input name="name" required maxLength={100} placeholder="e.g. laptop" />
          </label>
          <fieldset>
            <legend>Access</legend>
            <label className="inline">
              <input type="radio" name="scope" value="read" defaultChecked /> Read only
            </label>
            <label className="inline">
              <input type="radio" name="scope" value="write" /> Read and write
            </label>
          </fieldset>
          <button type="submit">Create key</button>
        </form>
        {created && (
          <section className="secret" aria-label="New key secret">
            <p>
              <strong>Copy the key “{created.name}” now.</strong> It is shown only this once.
            </p>
            <code data-testid="secret">{created.secret}</code>
            <button
              type="button"
              onClick={async () => {
                await navigator.clipboard?.writeText(created.secret).catch(() => undefined);
                setCopied(true);
              }}
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </section>
        )}
      </section>
      <Status message={error} kind="error" />
      <Status message={status} />
      <section aria-labelledby="your-keys">
        <h2 id="your-keys">Your keys</h2>
        {keys === null ? (
          <p>Loading…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="responsive">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id}>
                    <td data-label="Name">{k.name}</td>
                    <td data-label="Prefix">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Scopes">{k.scopes.includes("write") ? "Read and write" : "Read only"}</td>
                    <td data-label="Created">{formatTime(k.createdAt)}</td>
                    <td data-label="Last used">{k.lastUsedAt ? formatTime(k.lastUsedAt) : "Never"}</td>
                    <td data-label="Status">
                      {k.revokedAt ? (
                        `Revoked ${formatTime(k.revokedAt)}`
                      ) : confirming === k.id ? (
                        <span className="confirm">
                          Revoke “{k.name}”?{" "}
                          <button
                            type="button"
                            className="danger"
                            onClick={() => revoke(k.id)}
                            ref={(el) => el?.focus()}
                          >
                            Yes, revoke
                          </button>{" "}
                          <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                            Cancel
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="danger"
                          aria-label={`Revoke ${k.name}`}
                          onClick={() => setConfirming(k.id)}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}
