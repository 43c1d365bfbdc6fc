// Which test files the PostgreSQL pass of scripts/test.sh runs: those whose outcome can depend
// on TEST_DATABASE_URL. Every test database is made by test/helpers/database.ts, the only test
// module that reads it, so a file is selected when its import graph reaches a module that names
// TEST_DATABASE_URL — a new test that opens a database is selected without being listed.
import { existsSync, globSync, readFileSync } from "node:fs";
import path from "node:path";

/** The test files of the suite (the Vitest projects' include patterns), relative to the root. */
const TEST_FILES = ["src/**/*.test.ts", "test/**/*.test.ts"];

/** What a module must contain to make its importers depend on the test database. */
const MARK = "TEST_DATABASE_URL";

/**
 * A file that reaches the test database but asks, with a line `// postgres-pass: skip — <why>`,
 * not to be run again on PostgreSQL: its database use is incidental to what it checks.
 */
const OPT_OUT = /^\/\/ postgres-pass: skip — \S/m;

/** Relative specifiers of static imports, re-exports and dynamic `import("…")` with a literal. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** The source file an import names (`x.js` may be `x.ts`); undefined for data and declarations. */
function resolve(target: string): string | undefined {
  if (!/\.(ts|tsx|js|mjs)$/.test(target)) return undefined;
  return [target, target.replace(/\.js$/, ".ts")].find((f) => existsSync(f));
}

/**
 * The test files under `root` (`src/` and `test/`) whose relative-import graph reaches a module
 * naming TEST_DATABASE_URL, minus those that opt out with a `// postgres-pass: skip — …` line.
 *
 * @param root - the repository root (absolute path).
 * @returns paths relative to `root`, sorted.
 */
export function databaseTestFiles(root: string): string[] {
  const parsed = new Map<string, { marked: boolean; imports: string[] }>();
  const parse = (file: string) => {
    let entry = parsed.get(file);
    if (!entry) {
      const text = readFileSync(file, "utf8");
      const imports: string[] = [];
      for (const m of text.matchAll(IMPORT)) {
        const target = resolve(path.resolve(path.dirname(file), m[1] as string));
        if (target) imports.push(target);
      }
      entry = { marked: text.includes(MARK), imports };
      parsed.set(file, entry);
    }
    return entry;
  };
  const reachesMark = (start: string): boolean => {
    const seen = new Set([start]);
    const queue = [start];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      const { marked, imports } = parse(file);
      if (marked) return true;
      for (const next of imports) if (!seen.has(next) && seen.add(next)) queue.push(next);
    }
    return false;
  };
  return globSync(TEST_FILES, { cwd: root })
    .filter((rel) => {
      const file = path.join(root, rel);
      return reachesMark(file) && !OPT_OUT.test(readFileSync(file, "utf8"));
    })
    .sort();
}

// `node test/database-files.ts` prints the list.
if (import.meta.main) {
  for (const file of databaseTestFiles(path.resolve(import.meta.dirname, ".."))) console.log(file);
}
