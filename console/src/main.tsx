import { StrictMode, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { CapturePage } from "./pages/Capture";
import { CompositionEditorPage } from "./pages/CompositionEditor";
import { KeysPage } from "./pages/Keys";
import { NotFoundPage } from "./pages/NotFound";
import { ProjectPage } from "./pages/Project";
import { ProjectsPage } from "./pages/Projects";
import { RendersPage } from "./pages/Renders";
import { SettingsPage } from "./pages/Settings";
import { SetupPage } from "./pages/Setup";
import { SignInPage } from "./pages/SignIn";
import { WebhooksPage } from "./pages/Webhooks";
import { navigate, usePath } from "./router";
import { SessionProvider, useSession } from "./session";
import "./styles.css";

function Redirect(props: { to: string }) {
  useEffect(() => navigate(props.to, true), [props.to]);
  return null;
}

function SignedIn(props: { children: React.ReactNode }) {
  const { state } = useSession();
  if (state === undefined) return <p className="loading">Loading…</p>;
  if (state === null)
    return <Redirect to={`/console/sign-in?next=${encodeURIComponent(window.location.pathname)}`} />;
  return <>{props.children}</>;
}

function App() {
  const path = usePath().replace(/\/+$/, "");
  const capture = /^\/capture\/([^/]+)$/.exec(path);
  if (capture) return <CapturePage token={decodeURIComponent(capture[1] as string)} />;
  if (path === "/console/sign-in") return <SignInPage />;
  if (path === "/console/setup") return <SetupPage />;
  const project = /^\/console\/projects\/([^/]+)$/.exec(path);
  const editor = /^\/console\/projects\/([^/]+)\/compositions\/([^/]+)$/.exec(path);
  let page: React.ReactNode;
  if (project) page = <ProjectPage id={decodeURIComponent(project[1] as string)} />;
  else if (editor)
    page = (
      <CompositionEditorPage
        key={editor[2]}
        projectId={decodeURIComponent(editor[1] as string)}
        compositionId={decodeURIComponent(editor[2] as string)}
      />
    );
  else if (path === "/console/renders") page = <RendersPage />;
  else if (path === "/console/webhooks") page = <WebhooksPage />;
  else if (path === "/console/projects") page = <ProjectsPage />;
  else if (path === "/console/keys") page = <KeysPage />;
  else if (path === "/console/settings") page = <SettingsPage />;
  else if (path === "/console" || path === "") page = <Redirect to="/console/projects" />;
  else page = <NotFoundPage />;
  return <SignedIn>{page}</SignedIn>;
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <SessionProvider>
      <App />
    </SessionProvider>
  </StrictMode>,
);
