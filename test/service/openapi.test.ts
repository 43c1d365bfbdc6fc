import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
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

/** A media type object of the document (the parts read here). */
interface Media {
  schema?: { $ref?: string; examples?: unknown[] };
  example?: unknown;
  examples?: object;
}

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

  it("shows a request example for every request body", () => {
    const schemas = doc.components.schemas as Record<string, { examples?: unknown[] }>;
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const content = (op as { requestBody?: { content: Record<string, Media> } }).requestBody?.content;
        for (const [type, media] of Object.entries(content ?? {})) {
          const ref = media.schema?.$ref?.split("/").at(-1);
          const schema = ref ? schemas[ref] : media.schema;
          if (!media.example && !media.examples && !schema?.examples?.length) {
            missing.push(`${method.toUpperCase()} ${p} ${type}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("passes @redocly/cli lint with zero errors and zero warnings (only the listed exceptions ignored)", async () => {
    // Linted as `npx redocly lint tmp/openapi.json` is, with the repository's ignore file.
    const dir = await mkdtemp(path.join(tmpdir(), "cutroom-openapi-"));
    await mkdir(path.join(dir, "tmp"));
    await writeFile(path.join(dir, "tmp/openapi.json"), JSON.stringify(doc));
    await copyFile(path.resolve(".redocly.lint-ignore.yaml"), path.join(dir, ".redocly.lint-ignore.yaml"));
    const bin = path.resolve("node_modules/.bin/redocly");
    const out = await run(bin, ["lint", "tmp/openapi.json", "--format", "json"], {
      cwd: dir,
      maxBuffer: 32 * 1024 * 1024,
    }).catch((e: { stdout: string; stderr: string }) => e);
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const shown = report.problems.filter((p) => p.severity !== "off" && p.severity !== "ignore");
    expect(report.totals.errors, JSON.stringify(shown.slice(0, 5), null, 1)).toBe(0);
    expect(report.totals.warnings, JSON.stringify(shown.slice(0, 5), null, 1)).toBe(0);
    // The retired render event stream, deprecated and always 410, is the one ignored problem.
    expect(report.totals.ignored).toBe(1);
    expect(doc.paths["/api/render/{jobId}/events"]?.get).toMatchObject({ deprecated: true });
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
      // No links off the machine: the client.scalar.com button and the share/deploy toolbar are off.
      hideClientButton: true,
      showDeveloperTools: "never",
    });
  });
});
