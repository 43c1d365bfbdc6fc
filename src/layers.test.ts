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
  { name: "main", rank: 7, paths: ["main/", "app.ts", "runtime.ts"] },
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
});
