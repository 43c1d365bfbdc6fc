import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

// The client as a user gets it: `npm pack`, the tarball installed into a scratch ESM project and
// a scratch CommonJS project, a script run in each against a live server on Node 20 (the
// system's) and Node 24, the declarations compiled by a consumer's `tsc` with the default `lib`
// and `skipLibCheck: false`, and the browser entry bundled for the browser.
// postgres-pass: skip — the server is only the client's target here; test/client/journey.test.ts
// runs the client against PostgreSQL.
const run = promisify(execFile);
const NODE20 = process.env.NODE20_BIN ?? "/usr/bin/node";
const NODE24 = process.execPath;
const clientDir = path.resolve("clients/typescript");
const tsc = path.resolve("node_modules/typescript/bin/tsc");

let t: TestApp;
let base: string;
let key: string;
let scratch: { dir: string; cleanup(): Promise<void> };
let still: string;

/** The README's quick start (upload, compose, render, wait, download) and the error model. */
const journey = `
  const cutroom = createCutroomClient({ baseUrl: process.env.CUTROOM_URL, apiKey: process.env.CUTROOM_KEY });
  const [still] = await cutroom.uploadFiles({ files: [process.env.STILL] });
  const { data: composition } = await cutroom.POST("/api/compositions", {
    body: {
      name: "Packaged",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [{ kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "image", uploadId: still.id } }] }],
    },
  });
  const render = await cutroom.renderAndWait(composition.id, { format: "mp4", quality: "draft" });
  const signed = new URL(render.output.url);
  const download = await fetch(new URL(signed.pathname + signed.search, process.env.CUTROOM_URL));
  const bytes = new Uint8Array(await download.arrayBuffer());
  const refused = await cutroom.renderAndWait("cmp_missing").catch((err) => err);
  console.log(JSON.stringify({
    node: process.version,
    upload: still.type,
    render: render.status,
    bytes: bytes.length,
    size: render.output.size,
    refused: { isCutroomError: refused instanceof CutroomError, status: refused.status, code: refused.code },
  }));
`;

/** A consumer's typed use: checked by tsc, with one call the types must refuse. */
const typed = `
const client = createCutroomClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "crk_x" });
export async function projectName(id: string): Promise<string | undefined> {
  const { data } = await client.GET("/api/v1/projects/{projectId}", { params: { path: { projectId: id } } });
  return data?.name;
}
export async function wrongBody(): Promise<void> {
  // @ts-expect-error a project's name is a string
  await client.POST("/api/v1/projects", { body: { name: 42 } });
}
export function isMissing(err: unknown): boolean {
  return err instanceof CutroomError && err.code === "not_found";
}
`;

/** A consumer's tsconfig: no "lib", so the default, which includes the DOM. */
const tsconfig = (types: string[]) => ({
  compilerOptions: { module: "nodenext", strict: true, noEmit: true, skipLibCheck: false, types },
});

/**
 * A scratch project of `type` with the tarball installed (its dependencies from the npm cache),
 * and with Node's types (`@types/node` at `nodeTypes`, listed in `types`) when given.
 */
async function scratchProject(
  type: "module" | "commonjs",
  tarball: string,
  nodeTypes?: string,
): Promise<string> {
  const dir = path.join(scratch.dir, type);
  await mkdir(dir);
  await writeFile(
    path.join(dir, "package.json"),
    JSON.stringify({ name: `scratch-${type}`, private: true, type }),
  );
  const packages = nodeTypes ? [tarball, `@types/node@${nodeTypes}`] : [tarball];
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...packages],
    {
      cwd: dir,
    },
  );
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig(nodeTypes ? ["node"] : [])));
  return dir;
}

let esm: string;
let cjs: string;

beforeAll(async () => {
  scratch = await tempDir("cutroom-client-package-");
  still = path.join(scratch.dir, "still.png");
  await Promise.all([
    // prepack generates the OpenAPI types and builds dist/.
    run("npm", ["pack", "--pack-destination", scratch.dir], { cwd: clientDir }),
    ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=160x90", "-frames:v", "1", still]),
    (async () => {
      t = await startTestApp({ worker: true });
      base = await t.listen();
      ({ key } = await t.createAccount());
    })(),
  ]);
  const { version } = JSON.parse(await readFile(path.join(clientDir, "package.json"), "utf8"));
  const tarball = path.join(scratch.dir, `cutroom-client-${version}.tgz`);
  // The ES module project has Node's types beside the DOM's (where the client's own sources once
  // failed to compile); the CommonJS one has the DOM's only.
  const { version: nodeTypes } = JSON.parse(
    await readFile(path.resolve("node_modules/@types/node/package.json"), "utf8"),
  );
  [esm, cjs] = await Promise.all([
    scratchProject("module", tarball, nodeTypes),
    scratchProject("commonjs", tarball),
  ]);
  // The README's quick start, type-checked as written.
  const readme = await readFile(path.join(clientDir, "README.md"), "utf8");
  const quickStart = /## Quick start\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(quickStart).toBeDefined();
  await writeFile(path.join(esm, "quick-start.ts"), `${quickStart}\nexport {};\n`);
  await writeFile(
    path.join(esm, "journey.js"),
    `import { CutroomError, createCutroomClient } from "@cutroom/client";\n${journey}`,
  );
  await writeFile(
    path.join(cjs, "journey.js"),
    `const { CutroomError, createCutroomClient } = require("@cutroom/client");\n(async () => {${journey}})();`,
  );
  await writeFile(
    path.join(esm, "typed.ts"),
    `import { CutroomError, createCutroomClient } from "@cutroom/client";\n${typed}`,
  );
  await writeFile(
    path.join(cjs, "typed.ts"),
    `import { CutroomError, createCutroomClient } from "@cutroom/client";\n${typed}`,
  );
}, 180_000);

afterAll(async () => {
  await t?.close();
  await scratch?.cleanup();
});

describe("the packed client", () => {
  it("ships compiled JavaScript and declarations only, with a version and a README", async () => {
    const manifest = JSON.parse(
      await readFile(path.join(esm, "node_modules/@cutroom/client/package.json"), "utf8"),
    );
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: clientDir,
    });
    const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
    expect(files).toContain("README.md");
    expect(files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.cjs", "dist/node.js", "dist/node.cjs"]),
    );
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  const runtimes: { runtime: string; node: string; version: RegExp }[] = [
    { runtime: "Node 20", node: NODE20, version: /^v20\./ },
    { runtime: "Node 24", node: NODE24, version: /^v24\./ },
  ];
  for (const { runtime, node, version } of runtimes) {
    for (const kind of ["ESM", "CommonJS"]) {
      it(`runs the quick start from a ${kind} project on ${runtime}`, async () => {
        const { stdout } = await run(node, ["journey.js"], {
          cwd: kind === "ESM" ? esm : cjs,
          env: { ...process.env, CUTROOM_URL: base, CUTROOM_KEY: key, STILL: still },
        });
        const result = JSON.parse(stdout);
        expect(result.node).toMatch(version);
        expect(result).toMatchObject({
          upload: "image",
          render: "succeeded",
          refused: { isCutroomError: true, status: 404, code: "not_found" },
        });
        expect(result.bytes).toBe(result.size);
        expect(result.bytes).toBeGreaterThan(0);
      });
    }
  }

  it("type-checks (with the README's quick start) in ESM and CommonJS projects, default lib, skipLibCheck false", async () => {
    const checked = await Promise.all(
      [esm, cjs].map((dir) => run(process.execPath, [tsc, "-p", "."], { cwd: dir }).catch((err) => err)),
    );
    expect(checked.map((c) => `${c.stdout ?? ""}${c.stderr ?? ""}`)).toEqual(["", ""]);
  });

  it("bundles for the browser without any Node built-in", async () => {
    const entry = path.join(esm, "browser.js");
    await writeFile(entry, 'export { createCutroomClient } from "@cutroom/client";\n');
    const result = await build({
      absWorkingDir: esm,
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain("node_modules/@cutroom/client/dist/index.js");
    expect(inputs.filter((i) => i.startsWith("node:") || i.includes("/dist/node."))).toEqual([]);
  });
});
