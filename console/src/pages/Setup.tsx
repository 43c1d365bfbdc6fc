import { useEffect, useState } from "react";
import { api, errorMessage } from "../api/client";
import { Status } from "../components/Layout";
import { navigate } from "../router";
import { useSession } from "../session";

/** Sets the password from a one-time setup link (`/console/setup?token=…`) and signs in. */
export function SetupPage() {
  const { signedIn } = useSession();
  const token = new URLSearchParams(window.location.search).get("token") ?? "";
  const [error, setError] = useState<string | null>(
    token ? null : "This link has no token. Use the full link you were given.",
  );
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = "Set your password · Cutroom";
  }, []);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const password = String(form.get("password"));
    if (password !== String(form.get("confirm"))) {
      setError("The two passwords differ.");
      return;
    }
    setBusy(true);
    setError(null);
    const res = await api.POST("/api/v1/auth/setup", { body: { token, password } });
    setBusy(false);
    if (res.data) {
      signedIn(res.data);
      navigate("/console/projects", true);
    } else setError(errorMessage(res.error));
  }

  return (
    <main id="main" className="narrow">
      <h1>Set your password</h1>
      <p>Choose a password of at least 10 characters. This link works once.</p>
      <form onSubmit={submit} className="card stack">
        <label>
          New password
          <input name="password" type="password" autoComplete="new-password" minLength={10} required />
        </label>
        <label>
          Repeat the password
          <input name="confirm" type="password" autoComplete="new-password" minLength={10} required />
        </label>
        <button type="submit" disabled={busy || !token}>
          Set password and sign in
        </button>
        <Status message={error} kind="error" />
      </form>
    </main>
  );
}
