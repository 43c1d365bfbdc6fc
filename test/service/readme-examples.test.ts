import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../fixtures/render/media.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { client } from "../renders/helpers.ts";

// The README's curl examples, sent as written (ids filled in): a newcomer copying them in order
// gets what the comments say.
let t: TestApp;
let api: ReturnType<typeof client>;
let readme: string;
let dir: { dir: string; cleanup(): Promise<void> };

/** One curl command of the README's shell blocks: its URL path and its `-d` body, if any. */
interface Curl {
  path: string;
  body: string | null;
}

/** The curl commands of the README's `sh` blocks (continued lines joined, quotes kept whole). */
function curls(markdown: string): Curl[] {
  const shell = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").join("\n");
  const out: Curl[] = [];
  for (const start of shell.matchAll(/(?:^|\n)\s*(?:\S+=\S+\s+)*curl\b/g)) {
    let i = start.index + start[0].length;
    let quoted = false;
    for (; i < shell.length; i++) {
      if (shell[i] === "'") quoted = !quoted;
      if (!quoted && shell[i] === "\n" && shell[i - 1] !== "\\") break;
    }
    const command = shell.slice(start.index, i);
    const url = /\$BASE(\/[^\s"'?]*)/.exec(command)?.[1] ?? "";
    const body = /-d '([^']*)'/.exec(command)?.[1] ?? null;
    out.push({ path: url, body });
  }
  return out;
}

/** The body of the README's command posting to `url` whose body contains `marker`. */
function bodyOf(url: string, marker: string, ids: Record<string, string>): unknown {
  const found = curls(readme).find((c) => c.path === url && c.body?.includes(marker));
  expect(found, `a README curl to ${url} with ${marker}`).toBeDefined();
  let body = found?.body ?? "";
  for (const [placeholder, id] of Object.entries(ids)) body = body.replaceAll(placeholder, id);
  return JSON.parse(body);
}

beforeAll(async () => {
  readme = await readFile(path.resolve("README.md"), "utf8");
  dir = await tempDir();
  t = await startTestApp();
  api = client(await t.listen(), (await t.createAccount()).key);
});
afterAll(async () => {
  await t?.close();
  await dir?.cleanup();
});

describe("the README's examples", () => {
  it("create a composition in the project they then list compositions by", async () => {
    const project = await api.json("POST", "/api/v1/projects", bodyOf("/api/v1/projects", '"name"', {}));
    expect(project.status).toBe(201);
    const video = path.join(dir.dir, "phone.mp4");
    await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=3", "-pix_fmt", "yuv420p", video]);
    const [upload] = await api.upload([video]);
    const ids = { "prj_01JD...": project.body.id, "upl_01JD...": String(upload?.id) };
    const created = await api.json("POST", "/api/compositions", bodyOf("/api/compositions", '"Teaser"', ids));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const listed = await api.json("GET", `/api/compositions?projectId=${project.body.id}`);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
  });

  it("show the template their merge example fills, and the merge renders it", async () => {
    const template = await api.json("POST", "/api/compositions", bodyOf("/api/compositions", "{{", {}));
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const merge = bodyOf("/api/render", '"merge"', { "cmp_01JD...": template.body.id });
    const render = await api.json("POST", "/api/render", merge);
    expect(render.status, JSON.stringify(render.body)).toBe(202);
  });

  it("give the reference as a URL, not a desktop command", () => {
    expect(readme).not.toMatch(/^open \$BASE/m);
    expect(readme).toContain("http://127.0.0.1:3000/docs");
  });
});
