// Builds the published package into dist/: JavaScript bundles for Node (ESM and CommonJS) and
// for browsers and other web runtimes (ESM and CommonJS), plus the .d.ts declarations for both
// module systems. The CommonJS bundles carry their dependencies inside, taken from their ES
// modules: eventsource-parser ships ESM only (so `require("@cutroom/client")` works on every
// Node ≥ 20, not only where `require()` loads ES modules), and openapi-fetch's CommonJS build
// has no `__esModule` mark, so its default export would not survive the interop.
import { execFileSync } from "node:child_process";
import { cp, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const schema = path.join(root, "src/schema.d.ts");

await stat(schema).catch(() => {
  throw new Error(`${schema} is missing: run \`npm run generate\` (npm run openapi:types at the root) first`);
});
await rm(dist, { recursive: true, force: true });

/** One bundle of src/index.ts. `node` picks the Node uploads (paths, spooled streams). */
const bundle = (node, format) =>
  build({
    absWorkingDir: root,
    entryPoints: ["src/index.ts"],
    outfile: `dist/${node ? "node" : "index"}.${format === "esm" ? "js" : "cjs"}`,
    bundle: true,
    format,
    platform: node ? "node" : "neutral",
    target: node ? "node20" : "es2022",
    external: format === "esm" ? ["openapi-fetch", "eventsource-parser"] : [],
    // The neutral platform resolves no package fields by default; eventsource-parser needs `module`.
    ...(node ? {} : { mainFields: ["module", "main"] }),
    sourcemap: true,
    logLevel: "warning",
  });
await Promise.all([bundle(true, "esm"), bundle(true, "cjs"), bundle(false, "esm"), bundle(false, "cjs")]);

// Declarations: emitted once, copied beside a package.json that makes them CommonJS for `require`.
const typescript = path.dirname(createRequire(import.meta.url).resolve("typescript/package.json"));
const tsc = path.join(typescript, "bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
await cp(schema, path.join(dist, "esm/schema.d.ts"));
await mkdir(path.join(dist, "cjs"));
for (const file of await readdir(path.join(dist, "esm"))) {
  await cp(path.join(dist, "esm", file), path.join(dist, "cjs", file));
}
await writeFile(path.join(dist, "cjs/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
