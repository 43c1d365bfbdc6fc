import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const run = promisify(execFile);
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface OpenApiDoc {
  openapi: string;
  paths: Record<
    string,
    Record<string, { security?: unknown[]; responses: Record<string, { headers?: object }> }>
  >;
  components: { securitySchemes: object; schemas: Record<string, unknown> };
}

describe("GET /api/v1/openapi.json", () => {
  let doc: OpenApiDoc;
  beforeAll(async () => {
    const res = await t.app.inject({ url: "/api/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });

  it("is OpenAPI 3.1 with every API route, the security scheme, error body and rate-limit headers", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes).toHaveProperty("bearerAuth");
    expect(doc.components.schemas).toHaveProperty("ErrorResponse");
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
    );
    const routes = t.app
      .printRoutes({ commonPrefix: false, includeMeta: false })
      .split("\n")
      .filter((l) => l.includes("/api/"));
    expect(routes.length).toBeGreaterThan(0);
    for (const expected of [
      "GET /api/v1/health",
      "GET /api/v1/me",
      "GET /api/v1/projects",
      "POST /api/v1/projects",
      "GET /api/v1/projects/{projectId}",
    ]) {
      expect(documented).toContain(expected);
    }
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const r of Object.values(op.responses))
          expect(r.headers).toHaveProperty("X-RateLimit-Remaining");
      }
    }
    expect(doc.paths["/api/v1/health"]?.get?.security).toEqual([]);
  });

  it("passes @redocly/cli lint with zero errors", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cutroom-openapi-"));
    const file = path.join(dir, "openapi.json");
    await writeFile(file, JSON.stringify(doc));
    const bin = path.resolve("node_modules/.bin/redocly");
    const out = await run(bin, ["lint", file, "--format", "json"], { maxBuffer: 32 * 1024 * 1024 }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number };
      problems: { message: string; location: unknown }[];
    };
    expect(report.totals.errors, JSON.stringify(report.problems.slice(0, 5), null, 1)).toBe(0);
  }, 120_000);

  it("serves the interactive reference at /docs without a key", async () => {
    const res = await t.app.inject({ url: "/docs/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/html/);
    expect(res.body).toContain("/api/v1/openapi.json");
  });

  it("works offline: /docs loads only same-origin assets, without web fonts or telemetry", async () => {
    const page = await t.app.inject({ url: "/docs/" });
    const refs = [...page.body.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1] ?? "");
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const url = new URL(ref, "http://cutroom.test/docs/");
      expect(url.origin, ref).toBe("http://cutroom.test");
      const asset = await t.app.inject({ url: url.pathname });
      expect(asset.statusCode, ref).toBe(200);
      // The bundle fetches nothing from a CDN (its only remote font CSS is the one turned off below).
      expect(asset.body).not.toMatch(/cdn\.jsdelivr\.net|unpkg\.com|fonts\.googleapis\.com/);
    }
    expect(page.body).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)\s*=\s*["'](?:https?:)?\/\//i);
    const config = page.body.match(/createApiReference\('#app', (\{[\s\S]*?\})\)/)?.[1];
    expect(JSON.parse(config ?? "{}")).toMatchObject({
      url: "/api/v1/openapi.json",
      withDefaultFonts: false,
      telemetry: false,
    });
  });
});
