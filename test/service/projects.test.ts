import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("projects", () => {
  it("creates, fetches and lists newest first with cursor pages", async () => {
    const a = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/v1/projects",
        headers: bearer(a.key),
        payload: { name: `P${i}`, description: `d${i}` },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ name: `P${i}`, description: `d${i}` });
      expect(res.json().id).toMatch(/^prj_/);
      ids.push(res.json().id);
    }
    const got = await t.app.inject({ url: `/api/v1/projects/${ids[2]}`, headers: bearer(a.key) });
    expect(got.json()).toMatchObject({ id: ids[2], name: "P2" });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/v1/projects?limit=3${cursor ? `&cursor=${cursor}` : ""}`;
      const page = (await t.app.inject({ url, headers: bearer(a.key) })).json();
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((p: { id: string }) => p.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("defaults to 25 and rejects limits outside 1..100 and foreign cursors", async () => {
    const a = await t.createAccount();
    for (const bad of ["0", "101", "abc", "2.5"]) {
      const res = await t.app.inject({ url: `/api/v1/projects?limit=${bad}`, headers: bearer(a.key) });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.details[0].path).toBe("/limit");
    }
    const res = await t.app.inject({ url: "/api/v1/projects?cursor=garbage", headers: bearer(a.key) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toBe("/cursor");
  });

  it("another owner's project is a 404, and lists never show it", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const created = await t.app.inject({
      method: "POST",
      url: "/api/v1/projects",
      headers: bearer(a.key),
      payload: { name: "secret" },
    });
    const id = created.json().id;
    const res = await t.app.inject({ url: `/api/v1/projects/${id}`, headers: bearer(b.key) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("not_found");
    const list = await t.app.inject({ url: "/api/v1/projects", headers: bearer(b.key) });
    expect(list.json().data).toEqual([]);
  });
});
