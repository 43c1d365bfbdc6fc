import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { init, parse } from "es-module-lexer";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The source tree's layers, from the top. A file may import files of its own layer and of any
 * lower layer; an import that goes up, or sideways between two layers of the same rank, fails.
 * Paths are relative to `src/`; a prefix ending in `/` names a folder.
 */
const LAYERS: { name: string; rank: number; paths: string[] }[] = [
  { name: "main", rank: 7, paths: ["main/", "app.ts", "runtime.ts", "services.ts"] },
  { name: "http", rank: 6, paths: ["http/"] },
  { name: "domain", rank: 5, paths: ["domain/"] },
  { name: "queue", rank: 4, paths: ["queue/"] },
  { name: "media", rank: 4, paths: ["media/"] },
  { name: "storage", rank: 4, paths: ["storage/"] },
  { name: "metrics", rank: 3, paths: ["metrics/"] },
  { name: "net", rank: 3, paths: ["net/"] },
  { name: "db", rank: 2, paths: ["db/"] },
  {
    name: "shared",
    rank: 1,
    paths: [
      "clock.ts",
      "config.ts",
      "errors.ts",
      "ids.ts",
      "logger.ts",
      "repeat.ts",
      "secret-formats.ts",
      "text-guard.ts",
      "types/",
    ],
  },
];

/**
 * Upward imports that stand for now, each with its reason. `from` and `to` are path prefixes as in
 * `LAYERS`; `typeOnly` admits `import type` / `export type` only. An entry that no longer matches
 * any import fails too, so the list only shrinks.
 */
const KNOWN_UPWARD: { from: string; to: string; typeOnly: boolean; why: string }[] = [
  {
    from: "db/",
    to: "domain/",
    typeOnly: true,
    why: "JSON columns and row types are typed with the domain's shapes (timeline, plan, scopes, model ids)",
  },
  {
    from: "db/",
    to: "media/",
    typeOnly: true,
    why: "upload and analysis rows store the probe's and the analysers' results as JSON",
  },
];

/**
 * The domain's own areas, from the top: `domain/<area>/` or `domain/<area>.ts`. An area may
 * value-import areas of a lower rank only. `import type` may name any area (a port such as
 * `WebhookEvents`, which jobs receive and `webhooks` implements), but no two areas import each
 * other in any way. A new area needs a rank here.
 */
const DOMAIN_AREAS: { rank: number; areas: string[] }[] = [
  { rank: 6, areas: ["assistant"] },
  { rank: 5, areas: ["autoedit", "preview", "retention"] },
  { rank: 4, areas: ["generation", "interchange", "reframe", "render-jobs"] },
  { rank: 3, areas: ["accounts", "render", "uploads"] },
  { rank: 2, areas: ["composition", "console", "transcription"] },
  {
    rank: 1,
    areas: ["analysis", "auth", "fonts", "projects", "quota", "renders", "service", "vendors", "webhooks"],
  },
];

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every non-test TypeScript source under `src/`, as `/`-separated paths relative to it. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const isSource =
      entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts");
    return isSource ? [relative(SRC, path).split(sep).join("/")] : [];
  });
}

function layerOf(path: string) {
  return LAYERS.find((layer) => layer.paths.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p)));
}

/** The domain area of a path (`domain/render/plan.ts` → `render`), or undefined outside `domain/`. */
function domainAreaOf(path: string): string | undefined {
  const [top, area] = path.split("/");
  return top === "domain" && area ? area.replace(/\.ts$/, "") : undefined;
}

function domainRankOf(area: string): number | undefined {
  return DOMAIN_AREAS.find((entry) => entry.areas.includes(area))?.rank;
}

interface SourceImport {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The relative imports of one file that resolve inside `src/`, read with a module lexer. */
function importsOf(path: string): SourceImport[] {
  const text = readFileSync(join(SRC, path), "utf8");
  const [imports] = parse(text, path);
  return imports.flatMap((entry) => {
    if (!entry.n?.startsWith(".")) return [];
    const target = relative(SRC, resolve(SRC, dirname(path), entry.n))
      .split(sep)
      .join("/");
    if (target.startsWith("../")) return [];
    const statement = text.slice(entry.ss, entry.se);
    return [{ from: path, to: target, typeOnly: /^(import|export)\s+type\s/.test(statement) }];
  });
}

describe("source layers", () => {
  let files: string[] = [];
  let imports: SourceImport[] = [];
  beforeAll(async () => {
    await init;
    files = sourceFiles(SRC);
    imports = files.flatMap(importsOf);
  });

  it("reads the tree", () => {
    expect(files).toContain("queue/catalog.ts");
    expect(imports.some((i) => i.from === "queue/queue.ts" && i.to === "queue/catalog.ts")).toBe(true);
    expect(imports.some((i) => i.from === "db/schema/uploads.ts" && i.typeOnly)).toBe(true);
  });

  it("puts every source file in a layer", () => {
    expect(files.filter((path) => !layerOf(path))).toEqual([]);
  });

  it("has no import circle (type-only imports included)", () => {
    const next = new Map<string, string[]>();
    for (const i of imports) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, above: string[]) => {
      const path = [...above, file];
      state.set(file, "open");
      for (const to of next.get(file) ?? []) {
        if (state.get(to) === "open") circles.push([...path.slice(path.indexOf(to)), to].join(" -> "));
        else if (!state.has(to)) visit(to, path);
      }
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("has no import that goes up a layer", () => {
    const upward = imports.filter((i) => {
      const from = layerOf(i.from);
      const to = layerOf(i.to);
      if (!from || !to || from === to || to.rank < from.rank) return false;
      return !KNOWN_UPWARD.some(
        (k) => i.from.startsWith(k.from) && i.to.startsWith(k.to) && (i.typeOnly || !k.typeOnly),
      );
    });
    expect(
      upward.map((i) => `${i.from} imports ${i.to} (${layerOf(i.from)?.name} -> ${layerOf(i.to)?.name})`),
    ).toEqual([]);
  });

  it("lists only upward imports that still exist", () => {
    const stale = KNOWN_UPWARD.filter(
      (k) => !imports.some((i) => i.from.startsWith(k.from) && i.to.startsWith(k.to)),
    );
    expect(stale.map((k) => `${k.from} -> ${k.to}`)).toEqual([]);
  });

  it("ranks every domain area, and only areas that exist", () => {
    const present = new Set(files.flatMap((path) => domainAreaOf(path) ?? []));
    const listed = DOMAIN_AREAS.flatMap((entry) => entry.areas);
    expect([...present].filter((area) => domainRankOf(area) === undefined)).toEqual([]);
    expect(listed.filter((area) => !present.has(area))).toEqual([]);
  });

  it("has no domain value import that goes up an area or sideways", () => {
    const upward = imports.filter((i) => {
      const from = domainAreaOf(i.from);
      const to = domainAreaOf(i.to);
      if (!from || !to || from === to || i.typeOnly) return false;
      return (domainRankOf(to) ?? 0) >= (domainRankOf(from) ?? 0);
    });
    expect(upward.map((i) => `${i.from} imports ${i.to}`)).toEqual([]);
  });

  it("keeps route handlers off the repositories: routes call domain functions", () => {
    // A route parses, authorizes and presents; reading or writing rows is a use case's job.
    // `import type` of a row type is fine (presenters take rows).
    const direct = imports.filter(
      (i) => i.from.startsWith("http/routes/") && i.to.startsWith("db/repositories/") && !i.typeOnly,
    );
    expect(direct.map((i) => `${i.from} imports ${i.to}`)).toEqual([]);
  });

  it("has no two domain areas that import each other", () => {
    const edges = new Set(
      imports.flatMap((i) => {
        const from = domainAreaOf(i.from);
        const to = domainAreaOf(i.to);
        return from && to && from !== to ? [`${from} -> ${to}`] : [];
      }),
    );
    const pairs = [...edges].filter((edge) => {
      const [from, to] = edge.split(" -> ");
      return from !== undefined && to !== undefined && from < to && edges.has(`${to} -> ${from}`);
    });
    expect(pairs).toEqual([]);
  });
});
