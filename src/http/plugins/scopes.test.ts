import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import type { App, KeyAuth } from "../types.ts";
import type { Authenticators, AuthHook } from "./auth.ts";
import { routeScopes } from "./scopes.ts";

const caller: KeyAuth = {
  kind: "key",
  userId: "usr_1",
  plan: "standard",
  user: { email: "a@example.com", name: "A", createdAt: new Date(0), imageModel: null },
  key: {
    id: "key_1",
    name: "k",
    prefix: "crk_x",
    scopes: ["read"],
    createdAt: new Date(0),
    lastUsedAt: null,
  },
  quota: { limit: null, remaining: null, resetAt: new Date(0) },
};

/** Hooks that record which kind ran; the key hook wants an Authorization header. */
function fakeAuthenticators(ran: string[]): Authenticators {
  const named =
    (name: string, set?: KeyAuth): AuthHook =>
    async (request) => {
      ran.push(name);
      if (set) {
        if (!request.headers.authorization) throw new AppError("unauthorized", "Missing API key");
        request.auth = set;
      }
    };
  return {
    public: (quota) => named(`public:${quota}`),
    key: named("key", caller),
    console: named("console"),
    capture: named("capture", caller),
  };
}

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function newApp(): App {
  app = Fastify() as unknown as App;
  app.decorateRequest("auth", null);
  return app;
}

describe("routeScopes", () => {
  it("runs each scope's own hook for its routes only, and hands its routes request.auth", async () => {
    const a = newApp();
    const ran: string[] = [];
    const scopes = routeScopes(a, fakeAuthenticators(ran));
    await scopes.public(
      a,
      (s) => {
        s.get("/open", async (request) => ({ auth: request.auth }));
      },
      "files",
    );
    await scopes.key(a, (s) => {
      s.get("/mine", async (request) => ({ userId: request.auth.userId }));
    });

    const open = await a.inject({ url: "/open" });
    expect(open.json()).toEqual({ auth: null });
    expect(ran).toEqual(["public:files"]);

    ran.length = 0;
    expect((await a.inject({ url: "/mine" })).statusCode).toBe(401);
    const mine = await a.inject({ url: "/mine", headers: { authorization: "Bearer x" } });
    expect(mine.json()).toEqual({ userId: "usr_1" });
    expect(ran).toEqual(["key", "key"]);
  });

  it("refuses to start with a route outside every scope", async () => {
    const a = newApp();
    const scopes = routeScopes(a, fakeAuthenticators([]));
    await scopes.key(a, (s) => {
      s.get("/mine", async () => "ok");
    });
    a.get("/forgotten", async () => "open to anyone");
    await expect(a.ready()).rejects.toThrow("Routes registered outside a route scope: GET /forgotten");
  });
});
