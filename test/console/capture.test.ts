// Phone capture tokens through HTTP: made from the console, upload-only, bound to one project,
// counted against the owner's quota, revocable, and expiring after 30 minutes.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteDeadConsoleCredentials } from "../../src/db/repositories/console-sessions.ts";
import { bearer, fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";
import { postMultipart } from "../uploads/helpers.ts";
import { type ConsoleLogin, setPassword } from "./helpers.ts";

const SRT = Buffer.from("1\n00:00:00,000 --> 00:00:01,000\nHello from the phone\n");
const clock = fakeClock("2026-03-02T08:00:00Z");
let t: TestApp;
let base: string;
let s: ConsoleLogin;
let account: { userId: string; key: string };
let projectId: string;
let otherProjectId: string;
let consoleDir: string;

beforeAll(async () => {
  consoleDir = await mkdtemp(path.join(tmpdir(), "cutroom-console-"));
  await mkdir(path.join(consoleDir, "assets"));
  await writeFile(path.join(consoleDir, "index.html"), "<!doctype html><title>console</title>");
  await writeFile(path.join(consoleDir, "assets", "app-1234.js"), "console.log(1)");
  t = await startTestApp({ clock, env: { QUOTA_STANDARD_DAILY: "50", CONSOLE_DIR: consoleDir } });
  base = await t.listen();
  account = await t.createAccount();
  s = await setPassword(t, account.userId, "phone capture password");
  const mk = async (name: string) =>
    (
      await t.app.inject({ method: "POST", url: "/api/v1/projects", headers: s.write, payload: { name } })
    ).json().id as string;
  projectId = await mk("capture");
  otherProjectId = await mk("other");
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  await rm(consoleDir, { recursive: true, force: true });
});

async function newToken(): Promise<{ token: string; id: string; url: string }> {
  const res = await t.app.inject({
    method: "POST",
    url: `/api/v1/projects/${projectId}/capture-tokens`,
    headers: s.write,
  });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  return { token: body.token, id: body.captureToken.id, url: body.url };
}

const upload = (token: string, project: string | null) =>
  postMultipart(
    base,
    [...(project ? [{ field: "projectId", value: project }] : []), { filename: "phone.srt", data: SRT }],
    { key: token },
  );

describe("phone capture tokens", () => {
  it("are made from the console only", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: `/api/v1/projects/${projectId}/capture-tokens`,
      headers: bearer(account.key),
    });
    expect(res.statusCode).toBe(403);
    const missing = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects/prj_nope/capture-tokens",
      headers: s.write,
    });
    expect(missing.statusCode).toBe(404);
  });

  it("upload into their project, counted against the owner's quota, and nothing else", async () => {
    const { token, url } = await newToken();
    expect(url).toBe(`${t.config.publicUrl}/capture/${token}`);
    const before = (await t.app.inject({ url: "/api/v1/me", headers: bearer(account.key) })).json().rateLimit
      .remaining as number;

    const ok = await upload(token, projectId);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data?.[0]?.projectId).toBe(projectId);
    const listed = await t.app.inject({
      url: `/api/v1/uploads?projectId=${projectId}`,
      headers: bearer(account.key),
    });
    expect(listed.json().data.map((u: { name: string }) => u.name)).toContain("phone.srt");
    const after = (await t.app.inject({ url: "/api/v1/me", headers: bearer(account.key) })).json().rateLimit
      .remaining as number;
    // The capture upload, the listing and the /me call itself.
    expect(before - after).toBe(3);

    expect((await upload(token, otherProjectId)).status).toBe(403);
    const unnamed = await upload(token, null);
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.data?.[0]?.projectId).toBe(projectId);
    for (const [method, path] of [
      ["GET", "/api/v1/me"],
      ["GET", "/api/v1/projects"],
      ["GET", `/api/v1/uploads?projectId=${projectId}`],
      ["POST", "/api/v1/projects"],
      ["GET", "/api/v1/keys"],
    ] as const) {
      const res = await t.app.inject({
        method,
        url: path,
        headers: bearer(token),
        payload: method === "POST" ? { name: "x" } : undefined,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
  });

  it("are listed and stop working when revoked", async () => {
    const { token, id } = await newToken();
    const list = await t.app.inject({
      url: `/api/v1/projects/${projectId}/capture-tokens`,
      headers: { cookie: s.cookie },
    });
    expect(list.json().data.map((x: { id: string }) => x.id)).toContain(id);
    const del = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/capture-tokens/${id}`,
      headers: s.write,
    });
    expect(del.statusCode).toBe(204);
    const res = await upload(token, projectId);
    expect(res.status).toBe(401);
    expect(res.body.error?.message).toMatch(/expired or was revoked/);
  });

  it("expire after 30 minutes", async () => {
    const { token } = await newToken();
    clock.set(new Date(clock.now().getTime() + 29 * 60_000));
    expect((await upload(token, projectId)).status).toBe(201);
    clock.set(new Date(clock.now().getTime() + 2 * 60_000));
    expect((await upload(token, projectId)).status).toBe(401);
  });
});

describe("the console's files", () => {
  it("serve the app for every console and capture path, assets as files, all uncounted", async () => {
    for (const url of ["/console", "/console/keys", "/console/projects/prj_x", "/capture/crc_abc"]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain("<title>console</title>");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
      // Uncounted: the quota headers say "no limit" (every response carries them).
      expect(res.headers["x-ratelimit-limit"]).toBe("2147483647");
      expect(res.headers["x-ratelimit-remaining"]).toBe("2147483647");
    }
    const asset = await t.app.inject({ url: "/console/assets/app-1234.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toMatch(/immutable/);
    expect((await t.app.inject({ url: "/console/assets/missing.js" })).statusCode).toBe(404);
  });

  it("ended sessions and links are pruned a day later; live ones stay", async () => {
    const later = new Date(clock.now().getTime() + 2 * 86_400_000);
    expect(await deleteDeadConsoleCredentials(t.database.db, later)).toBeGreaterThan(0);
    const me = await t.app.inject({ url: "/api/v1/me", headers: { cookie: s.cookie } });
    expect(me.statusCode).toBe(200);
  });
});
