import { useEffect, useState } from "react";
import { api, errorMessage } from "../api/client";
import { Status } from "../components/Layout";
import { navigate } from "../router";
import { useSession } from "../session";

function nextPath(): string {
  const next = new URLSearchParams(window.location.search).get("next");
  return next?.startsWith("/console/") ? next : "/console/projects";
}

/** Sign-in with email and password (and sign-up when the server allows it). */
export function SignInPage() {
  const { signedIn } = useSession();
  const [mode, setMode] = useState<"sign-in" | "sign-up">("sign-in");
  const [signup, setSignup] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = "Sign in · Cutroom";
    void api.GET("/api/v1/auth/options").then(({ data }) => setSignup(Boolean(data?.signup)));
  }, []);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    setBusy(true);
    setError(null);
    const res =
      mode === "sign-in"
        ? await api.POST("/api/v1/auth/login", { body: { email, password } })
        : await api.POST("/api/v1/auth/signup", { body: { email, password } });
    setBusy(false);
    if (res.data) {
      signedIn(res.data);
      navigate(nextPath(), true);
    } else setError(errorMessage(res.error));
  }

  return (
    <main id="main" className="narrow">
      <h1>{mode === "sign-in" ? "Sign in to Cutroom" : "Create a Cutroom account"}</h1>
      <form onSubmit={submit} className="card stack">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
            required
            minLength={mode === "sign-up" ? 10 : undefined}
          />
        </label>
        <button type="submit" disabled={busy}>
          {mode === "sign-in" ? "Sign in" : "Create account"}
        </button>
        <Status message={error} kind="error" />
      </form>
      {signup && (
        <p>
          <button
            type="button"
            className="link"
            onClick={() => setMode(mode === "sign-in" ? "sign-up" : "sign-in")}
          >
            {mode === "sign-in" ? "No account? Create one" : "Have an account? Sign in"}
          </button>
        </p>
      )}
      <p className="hint">
        Forgot the password? An operator can print a new link: cutroom users reset-password &lt;email&gt;
      </p>
    </main>
  );
}
