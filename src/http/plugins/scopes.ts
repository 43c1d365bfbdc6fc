import type { RouteOptions } from "fastify";
import type { App, CaptureApp, ConsoleApp, KeyApp, PublicApp, ScopedApp, ScopeKind } from "../types.ts";
import type { Authenticators, AuthHook, PublicQuota } from "./auth.ts";

type Register<K extends ScopeKind> = (scope: ScopedApp<K>) => void | Promise<void>;

/**
 * Registers route groups by who may call them. Each call registers one encapsulated Fastify
 * context (`app.register`) whose onRequest hook does that kind of authentication and sets
 * `request.auth`, narrowed in the scope's type; `register` adds the group's routes to it.
 * Every call resolves once its routes are registered, so routes keep the order they are
 * registered in (the OpenAPI document lists them in that order).
 */
export interface RouteScopes {
  /** No credential; counted against the caller IP's quota as `quota` says (default anonymous). */
  public(app: App, register: (scope: PublicApp) => void | Promise<void>, quota?: PublicQuota): Promise<void>;
  /** The API: an API key (its scopes checked against `config.scope`) or a console session. */
  key(app: App, register: (scope: KeyApp) => void | Promise<void>): Promise<void>;
  /** Console-only routes: the session cookie alone (API keys and capture tokens get 403). */
  console(app: App, register: (scope: ConsoleApp) => void | Promise<void>): Promise<void>;
  /** Routes a phone capture token may call (403 everywhere else), besides keys and sessions. */
  capture(app: App, register: (scope: CaptureApp) => void | Promise<void>): Promise<void>;
}

/**
 * The route scopes over the hooks `registerAuth` returned. A route registered on `app` outside
 * every scope would answer without authentication: `app.ready()` then fails naming it.
 * Call before any route is registered.
 */
export function routeScopes(app: App, auth: Authenticators): RouteScopes {
  const all: RouteOptions[] = [];
  const scoped = new WeakSet<RouteOptions>();
  app.addHook("onRoute", (route) => {
    all.push(route);
  });
  app.addHook("onReady", async () => {
    const outside = all.filter((route) => !scoped.has(route)).map((r) => `${r.method} ${r.url}`);
    if (outside.length > 0) throw new Error(`Routes registered outside a route scope: ${outside.join(", ")}`);
  });

  async function scope<K extends ScopeKind>(
    parent: App,
    hook: AuthHook,
    register: Register<K>,
  ): Promise<void> {
    await parent.register(async (child) => {
      child.addHook("onRequest", hook);
      child.addHook("onRoute", (route) => {
        scoped.add(route);
      });
      // The same instance, typed so that handlers see `request.auth` as this scope sets it.
      await register(child as unknown as ScopedApp<K>);
    });
  }

  return {
    public: (app, register, quota = "anonymous") => scope(app, auth.public(quota), register),
    key: (app, register) => scope(app, auth.key, register),
    console: (app, register) => scope(app, auth.console, register),
    capture: (app, register) => scope(app, auth.capture, register),
  };
}
