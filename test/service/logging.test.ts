import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuePasswordLink } from "../../src/domain/console/password-link.ts";
import { scrubSecrets } from "../../src/logger.ts";
import { loginFromResponse } from "../console/helpers.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("logs", () => {
  it("never contain the Authorization header or a key, even one sent in a URL", async () => {
    const a = await t.createAccount();
    await t.app.inject({ url: "/api/v1/me", headers: bearer(a.key) });
    await t.app.inject({
      url: `/api/v1/me?api_key=${a.key}`,
      headers: { authorization: `Bearer ${a.key}x` },
    });
    await t.app.inject({ url: `/files/x?exp=1&sig=abcdef0123456789` });
    const all = t.logs.join("");
    expect(t.logs.length).toBeGreaterThan(4);
    expect(all).toContain("/api/v1/me");
    expect(all).not.toContain(a.key);
    expect(all).not.toContain(a.key.slice(4));
    expect(all).not.toContain("abcdef0123456789");
    expect(all.toLowerCase()).not.toContain("bearer");
  });

  it("never contain any secret the server issues, over a full journey (paths, queries, bodies, messages)", async () => {
    const a = await t.createAccount();
    const secrets: Record<string, string> = { crk: a.key };
    // A password setup link (crp_), opened in a browser and used (with the token in the query too).
    const link = await issuePasswordLink(t.database.db, { userId: a.userId, publicUrl: t.config.publicUrl });
    const crp = new URL(link.url).searchParams.get("token") as string;
    secrets.crp = crp;
    await t.app.inject({ url: `/console/setup?token=${crp}` });
    await t.app.inject({
      method: "POST",
      url: `/api/v1/auth/setup?token=${crp}`,
      payload: { token: crp, password: "x" },
    });
    const setup = await t.app.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: crp, password: "correct horse battery" },
    });
    expect(setup.statusCode, setup.body).toBe(200);
    // The console session (crs_) and its CSRF token, also mistakenly put in a path.
    const session = loginFromResponse(setup);
    secrets.crs = session.cookie.split("=")[1] as string;
    await t.app.inject({ url: `/api/v1/me/${secrets.crs}`, headers: { cookie: session.cookie } });
    // A phone capture link (crc_), opened and used.
    const project = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: bearer(a.key),
      payload: { name: "Journey" },
    });
    const capture = await t.app.inject({
      method: "POST",
      url: `/api/v1/projects/${project.json().id}/capture-tokens`,
      headers: session.write,
    });
    expect(capture.statusCode, capture.body).toBe(201);
    secrets.crc = capture.json().token as string;
    await t.app.inject({ url: `/capture/${secrets.crc}` });
    await t.app.inject({ url: `/api/v1/uploads?token=${secrets.crc}`, headers: bearer(secrets.crc) });
    // A webhook signing secret (whsec_), echoed back in a query.
    const hook = await t.app.inject({
      method: "POST",
      url: "/api/v1/webhooks",
      headers: bearer(a.key),
      payload: { url: "https://hooks.example.com/x", events: ["render.succeeded"] },
    });
    if (hook.statusCode === 201) secrets.whsec = hook.json().secret as string;
    else secrets.whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    await t.app.inject({
      url: `/api/v1/webhooks?secret=${encodeURIComponent(secrets.whsec)}`,
      headers: bearer(a.key),
    });
    // Application log lines that carry secrets in a message and in a logged body.
    t.app.log.warn({ body: { token: crp, nested: [{ key: a.key }] } }, `token ${secrets.crc} seen`);

    const all = t.logs.join("");
    expect(all).toContain("/console/setup");
    expect(all).toContain("[REDACTED]");
    for (const [kind, secret] of Object.entries(secrets)) {
      const body = secret.slice(secret.indexOf("_") + 1);
      expect(all, kind).not.toContain(body);
      expect(all, kind).not.toContain(encodeURIComponent(body));
    }
    expect(all).not.toContain(session.csrf);
  });

  it("redact a capture or setup token of an unexpected length by where it is: after /capture/, in token=", async () => {
    const odd = ["crc_tooShort9", `crc_${"Q".repeat(41)}`, "not-a-token-format-0123"];
    for (const token of odd) {
      await t.app.inject({ url: `/capture/${token}` });
      await t.app.inject({ url: `/capture/${token}/extra?x=1` });
      await t.app.inject({ url: `/console/setup?a=1&token=${token}` });
      await t.app.inject({ url: `/api/v1/auth/setup?TOKEN=${token}`, method: "POST", payload: {} });
    }
    const all = t.logs.join("");
    expect(all).toContain("/capture/[REDACTED]/extra?x=1");
    expect(all).toContain("/console/setup?a=1&token=[REDACTED]");
    for (const token of odd) expect(all, token).not.toContain(token.slice(4));
  });

  it("scrubSecrets removes keys and URL signatures", () => {
    const key = `crk_${"Ab1".repeat(13)}x`;
    expect(scrubSecrets(`/x?k=${key}&sig=zz&X-Amz-Signature=yy`)).toBe(
      "/x?k=crk_[REDACTED]&sig=[REDACTED]&X-Amz-Signature=[REDACTED]",
    );
  });
});
