import { useEffect, useRef } from "react";
import { Link, navigate, usePath } from "../router";
import { useSession } from "../session";

const NAV = [
  { to: "/console/projects", label: "Projects" },
  { to: "/console/renders", label: "Renders" },
  { to: "/console/webhooks", label: "Webhooks" },
  { to: "/console/keys", label: "API keys" },
  { to: "/console/settings", label: "Settings" },
];

/** The signed-in frame: header with navigation and sign-out, and the page's main landmark. */
export function Layout(props: { title: string; children: React.ReactNode; wide?: boolean }) {
  const path = usePath();
  const { state, signOut } = useSession();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Cutroom`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Cutroom</span>
        <nav aria-label="Console">
          {NAV.map((n) => (
            <Link key={n.to} to={n.to} current={path.startsWith(n.to)}>
              {n.label}
            </Link>
          ))}
        </nav>
        <span className="who">{state?.user.email}</span>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            await signOut();
            navigate("/console/sign-in");
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" className={props.wide ? "wide" : undefined}>
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.children}
      </main>
    </>
  );
}

/** A status line read out by screen readers when it changes. */
export function Status(props: { message: string | null; kind?: "error" | "ok" }) {
  return (
    <p role={props.kind === "error" ? "alert" : "status"} className={props.kind === "error" ? "error" : "ok"}>
      {props.message ?? ""}
    </p>
  );
}
