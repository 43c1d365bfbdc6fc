import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { tinyCanvas } from "../renders/helpers.ts";

// Cutroom as an MCP server: the SDK's own client over HTTP against a real server.
let t: TestApp;
let base: string;
const clients: Client[] = [];

/** An MCP client connected to the test server with `key`. */
async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "cutroom-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** Calls a tool; returns its structured content, and whether it is an error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  // biome-ignore lint/suspicious/noExplicitAny: tool results are JSON of many shapes
  return { body: result.structuredContent as any, isError: result.isError === true, text };
}

const colourClip = (name: string) => ({
  name,
  canvas: tinyCanvas(25),
  tracks: [{ kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#3366ff" } }] }],
});

let owner: Client;
let ownerKey: string;

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  base = await t.listen();
  ownerKey = (await t.createAccount()).key;
  owner = await connect(ownerKey);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.close();
});

describe("MCP server at /mcp", () => {
  it("lists the tools with the routes' input schemas", async () => {
    const { tools } = await owner.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      "list_projects",
      "list_uploads",
      "get_composition",
      "create_composition",
      "patch_composition",
      "list_composition_versions",
      "get_composition_version",
      "diff_composition_versions",
      "revert_composition",
      "reframe_composition",
      "check_composition",
      "preflight_render",
      "start_render",
      "get_render",
      "detect_chapters",
      "summarize_clip",
      "suggest_broll",
      "generate_image",
      "generate_video",
      "run_assistant",
    ]) {
      expect(names).toContain(name);
    }
    const create = tools.find((tool) => tool.name === "create_composition");
    expect(create?.inputSchema.required).toEqual(["body"]);
    const body = create?.inputSchema.properties?.body as { required: string[]; properties: object };
    expect(body.required).toEqual(expect.arrayContaining(["name", "canvas", "tracks"]));
    expect(create?.annotations?.readOnlyHint).toBe(false);
    const get = tools.find((tool) => tool.name === "get_render");
    expect(get?.inputSchema.required).toEqual(["id"]);
    expect(get?.annotations?.readOnlyHint).toBe(true);
  });

  it("every tool speaks one dialect: the resource's id is `id`, the JSON body is `body`", async () => {
    const { tools } = await owner.listTools();
    const instructions = owner.getInstructions();
    expect(instructions).toContain("`id`");
    expect(instructions).toContain("`body`");
    for (const tool of tools) {
      const props = Object.keys(tool.inputSchema.properties ?? {});
      // No path id under another name, no body under another name.
      for (const name of props) expect(name, tool.name).not.toMatch(/^(jobId|runId|uploadId|composition)$/);
      if (["get_", "cancel_", "patch_"].some((p) => tool.name.startsWith(p))) {
        expect(tool.inputSchema.required, tool.name).toContain("id");
      }
      if (props.includes("body")) expect(tool.description, tool.name).toContain("`body`");
      if (props.includes("id")) expect(tool.description, tool.name).toContain("`id`");
    }
    const check = tools.find((tool) => tool.name === "check_composition");
    expect(check?.inputSchema.required).toEqual(["body"]);
    for (const name of ["get_render", "cancel_render", "get_composition", "get_upload", "get_generation"]) {
      expect(tools.find((tool) => tool.name === name)?.inputSchema.required, name).toEqual(["id"]);
    }

    // An old or misplaced argument name is refused, naming the argument expected instead.
    const oldId = await call(owner, "get_render", { jobId: "rnd_00000000000000000000000000" });
    expect(oldId.isError).toBe(true);
    expect(oldId.body.error).toMatchObject({
      code: "invalid_request",
      details: [{ path: "/jobId", message: expect.stringContaining("send it as `id`") }],
    });
    expect(oldId.text).toContain("get_render does not take `jobId`: send it as `id`");
    const oldBody = await call(owner, "check_composition", { composition: colourClip("old") });
    expect(oldBody.isError).toBe(true);
    expect(oldBody.text).toContain("check_composition does not take `composition`: send it as `body`");
    const flat = await call(owner, "create_project", { name: "flat" });
    expect(flat.isError).toBe(true);
    expect(flat.text).toContain("`name`: it is a field of `body`");
    const stray = await call(owner, "list_projects", { colour: "red" });
    expect(stray.isError).toBe(true);
    expect(stray.body.error.details[0].message).toContain("list_projects takes `limit`");
    const missing = await call(owner, "cancel_render", {});
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("Missing `id`");
  });

  it("builds, checks, patches and renders a composition", async () => {
    const bad = await call(owner, "check_composition", {
      body: { ...colourClip("bad"), canvas: { ...tinyCanvas(25), width: 161 } },
    });
    expect(bad.isError).toBe(false);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.problems).toEqual([expect.objectContaining({ path: "/canvas/width" })]);
    expect(bad.text).toContain("/canvas/width");
    expect((await call(owner, "check_composition", { body: colourClip("ok") })).body).toEqual({
      valid: true,
      problems: [],
    });

    const created = await call(owner, "create_composition", { body: colourClip("mcp") });
    expect(created.isError, created.text).toBe(false);
    expect(created.body).toMatchObject({ name: "mcp", version: 1 });
    expect(created.text).toContain(created.body.id);

    const patched = await call(owner, "patch_composition", {
      id: created.body.id,
      "if-match": '"1"',
      body: [{ op: "replace", path: "/name", value: "mcp renamed" }],
    });
    expect(patched.isError, patched.text).toBe(false);
    expect(patched.body).toMatchObject({ name: "mcp renamed", version: 2 });
    const stale = await call(owner, "patch_composition", {
      id: created.body.id,
      "if-match": '"1"',
      body: [{ op: "replace", path: "/name", value: "lost update" }],
    });
    expect(stale.isError).toBe(true);
    expect(stale.body.error.code).toBeDefined();
    const root = await call(owner, "patch_composition", {
      id: created.body.id,
      "if-match": '"2"',
      body: [{ op: "replace", path: "", value: null }],
    });
    expect(root.isError, root.text).toBe(true);
    expect(root.body.error).toMatchObject({ code: "invalid_request" });
    expect(root.body.error.message).toMatch(/would replace the whole composition/);

    const versions = await call(owner, "list_composition_versions", { id: created.body.id });
    expect(versions.isError, versions.text).toBe(false);
    expect(versions.body.data).toEqual([
      expect.objectContaining({ version: 2, author: { kind: "mcp", keyId: expect.any(String) } }),
      expect.objectContaining({
        version: 1,
        author: expect.objectContaining({ kind: "mcp" }),
        summary: "created",
      }),
    ]);
    const diff = await call(owner, "diff_composition_versions", { id: created.body.id, version: 2, from: 1 });
    expect(diff.body.patch).toEqual([{ op: "replace", path: "/name", value: "mcp renamed" }]);
    const reverted = await call(owner, "revert_composition", {
      id: created.body.id,
      "if-match": '"2"',
      body: { version: 1 },
    });
    expect(reverted.isError, reverted.text).toBe(false);
    expect(reverted.body).toMatchObject({ name: "mcp", version: 3 });
    const old = await call(owner, "get_composition_version", { id: created.body.id, version: 1 });
    expect(old.body).toMatchObject({ name: "mcp", version: 1 });
    const back = await call(owner, "patch_composition", {
      id: created.body.id,
      "if-match": '"3"',
      body: [{ op: "replace", path: "/name", value: "mcp renamed" }],
    });
    expect(back.body).toMatchObject({ name: "mcp renamed", version: 4 });

    const invalid = await call(owner, "create_composition", { body: { name: "no tracks" } });
    expect(invalid.isError).toBe(true);
    expect(invalid.body.error.code).toBe("invalid_request");

    const preflight = await call(owner, "preflight_render", {
      body: { compositionId: created.body.id, output: { format: "mp4", quality: "draft" } },
    });
    expect(preflight.isError, preflight.text).toBe(false);
    expect(preflight.body).toMatchObject({ ok: true, problems: [], compositionVersion: 4 });
    const missing = await call(owner, "preflight_render", {
      body: {
        composition: {
          ...colourClip("missing"),
          tracks: [
            {
              kind: "video",
              clips: [
                {
                  id: "m1",
                  start: 0,
                  duration: 1,
                  asset: { type: "video", uploadId: "upl_00000000000000000000000000" },
                },
              ],
            },
          ],
        },
        output: { format: "mp4", quality: "draft" },
      },
    });
    expect(missing.body.ok ?? false, missing.text).toBe(false);

    const started = await call(owner, "start_render", {
      body: { compositionId: created.body.id, output: { format: "mp4", quality: "draft" } },
    });
    expect(started.isError, started.text).toBe(false);
    expect(started.body).toMatchObject({ status: "queued", compositionVersion: 4 });
    let render = started.body;
    const deadline = Date.now() + 60_000;
    while (!["succeeded", "failed", "cancelled"].includes(render.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      render = (await call(owner, "get_render", { id: started.body.id })).body;
    }
    expect(render.status, JSON.stringify(render.error)).toBe("succeeded");
    expect(render.output).toMatchObject({ format: "mp4", width: 160, height: 90 });

    const list = await call(owner, "list_projects");
    expect(list.body).toMatchObject({ data: [] });
    expect(list.text).toContain("0 items");
  });

  it("runs the assistant, the analysis helpers and generation", async () => {
    const session = await call(owner, "create_assistant_session", { body: {} });
    expect(session.isError, session.text).toBe(false);
    const run = await call(owner, "run_assistant", {
      body: { sessionId: session.body.id, message: "add a title 'Hello' at 0s for 1 second" },
    });
    expect(run.isError, run.text).toBe(false);
    const events = run.body.events as { event: string; data: { reason?: string } }[];
    expect(events[0]?.event).toBe("session");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { reason: "stop" } });
    expect(run.text).toContain("Hello");

    const chapters = await call(owner, "detect_chapters", {
      body: {
        transcript: [
          { start: 0, end: 5, text: "Welcome to the show about cooking pasta at home." },
          { start: 5, end: 10, text: "Now we talk about the weather in the mountains." },
        ],
        duration: 10,
      },
    });
    expect(chapters.isError, chapters.text).toBe(false);
    expect(chapters.body.chapters.length).toBeGreaterThan(0);

    const image = await call(owner, "generate_image", {
      body: { prompt: "A paper boat", imageSize: { width: 160, height: 96 }, seed: 1 },
    });
    expect(image.isError, image.text).toBe(false);
    expect(image.body).toMatchObject({ kind: "image", status: "succeeded" });
    const generated = await call(owner, "get_generation", { id: image.body.id });
    expect(generated.body.outputs[0].id).toBe(image.body.outputs[0].id);
    const uploads = await call(owner, "list_uploads");
    expect(uploads.body.data.map((u: { id: string }) => u.id)).toContain(image.body.outputs[0].id);
  });

  it("refuses writes to a read-only key and another account's ids, and calls without a key", async () => {
    const { userId } = await t.createAccount();
    const readOnly = await connect((await t.addKey(userId, ["read"])).key);
    expect((await call(readOnly, "list_compositions")).isError).toBe(false);
    const refused = await call(readOnly, "create_composition", { body: colourClip("nope") });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe("insufficient_scope");
    expect(refused.text).toContain("403");
    const check = await call(readOnly, "check_composition", { body: colourClip("ok") });
    expect(check.body.valid).toBe(true);

    const mine = await call(owner, "create_composition", { body: colourClip("private") });
    const render = await call(owner, "start_render", {
      body: { compositionId: mine.body.id, output: { format: "png" } },
    });
    const other = await connect((await t.createAccount()).key);
    for (const [tool, args] of [
      ["get_composition", { id: mine.body.id }],
      ["patch_composition", { id: mine.body.id, body: [{ op: "replace", path: "/name", value: "x" }] }],
      ["get_render", { id: render.body.id }],
      ["cancel_render", { id: render.body.id }],
      ["start_render", { body: { compositionId: mine.body.id } }],
    ] as const) {
      const res = await call(other, tool, args);
      expect(res.isError, `${tool}: ${res.text}`).toBe(true);
      expect(res.body.error.code, tool).toBe("not_found");
    }
    const names = (await call(other, "list_compositions")).body.data.map((c: { name: string }) => c.name);
    expect(names).not.toContain("private");

    const anonymous = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
    // A forged on-behalf token is refused like an invalid key.
    const forged = await fetch(`${base}/api/compositions`, { headers: { "x-cutroom-on-behalf": "guess" } });
    expect(forged.status).toBe(401);
  });

  it("answers a plain initialize as JSON and refuses GET", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ownerKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "curl", version: "1" },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
    const body = await res.json();
    expect(body).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "cutroom" }, capabilities: { tools: {} } },
    });
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${ownerKey}` } });
    expect(get.status).toBe(405);

    // A tool call counts one call against the quota, like its REST request: not two.
    const toolCall = async (id: number) => {
      const r = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${ownerKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "create_project", arguments: { body: { name: `counted ${id}` } } },
        }),
      });
      const answer = (await r.json()) as { result: { isError?: boolean } };
      expect(answer.result.isError).toBeUndefined();
      return Number(r.headers.get("x-ratelimit-remaining"));
    };
    const first = await toolCall(2);
    expect(await toolCall(3)).toBe(first - 1);
  });
});
