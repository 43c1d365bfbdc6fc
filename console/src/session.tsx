import { createContext, useCallback, useContext, useEffect, useState } from "react";
import { api, type Schemas, setCsrfToken } from "./api/client";

type SessionState = Schemas["SessionState"];

interface SessionContext {
  /** undefined while loading, null when signed out. */
  state: SessionState | null | undefined;
  signedIn(state: SessionState): void;
  signOut(): Promise<void>;
}

const Ctx = createContext<SessionContext | null>(null);

/** Loads the current session (GET /api/v1/auth/session) and keeps its CSRF token. */
export function SessionProvider(props: { children: React.ReactNode }) {
  const [state, setState] = useState<SessionState | null | undefined>(undefined);
  useEffect(() => {
    api
      .GET("/api/v1/auth/session")
      .then(({ data }) => {
        setCsrfToken(data?.csrfToken ?? null);
        setState(data ?? null);
      })
      .catch(() => setState(null));
  }, []);
  const signedIn = useCallback((s: SessionState) => {
    setCsrfToken(s.csrfToken);
    setState(s);
  }, []);
  const signOut = useCallback(async () => {
    await api.POST("/api/v1/auth/logout");
    setCsrfToken(null);
    setState(null);
  }, []);
  return <Ctx.Provider value={{ state, signedIn, signOut }}>{props.children}</Ctx.Provider>;
}

/** The session context (throws outside the provider). */
export function useSession(): SessionContext {
  const c = useContext(Ctx);
  if (!c) throw new Error("useSession outside SessionProvider");
  return c;
}
