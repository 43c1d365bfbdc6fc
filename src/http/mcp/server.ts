import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Db } from "../../db/client.ts";
import { validateCompositionFor } from "../../domain/composition/edit-composition.ts";
import type { RenderLimits } from "../../domain/composition/limits.ts";
import { AppError } from "../../errors.ts";
import { lendAuth } from "../plugins/auth.ts";
import type { RouteScopes } from "../plugins/scopes.ts";
import { CompositionWriteBody } from "../schemas/composition.ts";
import type { App, KeyApp, KeyAuth, SessionAuth } from "../types.ts";
import { ARGUMENT_CONVENTION, unexpectedArguments } from "./arguments.ts";
import {
  argumentsLine,
  callRoute,
  collectRoutes,
  type RouteAnswer,
  type RouteInfo,
  routeInputSchema,
} from "./route-call.ts";
import { ROUTE_TOOLS } from "./tools.ts";

/** What the MCP endpoint needs besides the routes it calls. */
export interface McpDeps {
  db: Db;
  clock: { now(): Date };
  renderLimits: RenderLimits;
  version: string;
}

const CHECK_COMPOSITION: Tool = {
  name: "check_composition",
  description:
    "Validate a composition without storing or rendering it: structure, ranges, clip overlaps, upload references (each `uploadId` must be yours, with a matching type), fonts and the render cost limits, exactly as create_composition and start_render check them. Returns `valid` and every problem as `{ path, message }` (JSON Pointer into `body`). Arguments: `body` (the composition, as create_composition's `body`).",
  inputSchema: {
    type: "object",
    properties: { body: JSON.parse(JSON.stringify(CompositionWriteBody)) },
    required: ["body"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

/** Argument names check_composition once took → the argument that carries them now. */
const CHECK_RENAMED = new Map([["composition", "body"]]);

/** One line saying what a route answered: status, then the resource's id, status and version, or the page size. */
export function describeAnswer(tool: string, answer: RouteAnswer): string {
  const body = (answer.body ?? {}) as Record<string, unknown>;
  const error = body.error as
    | { code?: string; message?: string; details?: { path: string; message: string }[] }
    | undefined;
  if (answer.status >= 400) {
    const details = (error?.details ?? []).map((d) => `${d.path || "/"} ${d.message}`).join("; ");
    return `${tool} failed (${answer.status} ${error?.code}): ${error?.message}${details ? ` (${details})` : ""}`;
  }
  const parts: string[] = [];
  if (typeof body.id === "string") parts.push(body.id);
  if (typeof body.status === "string") parts.push(`status ${body.status}`);
  if (typeof body.version === "number") parts.push(`version ${body.version}`);
  if (Array.isArray(body.data)) {
    parts.push(`${body.data.length} item${body.data.length === 1 ? "" : "s"}`);
    if (body.nextCursor) parts.push(`more with cursor ${body.nextCursor}`);
  }
  if (Array.isArray(body.events)) {
    const said = body.events
      .filter((e: { event?: string }) => e.event === "text")
      .map((e: { data?: { delta?: string } }) => e.data?.delta ?? "")
      .join("");
    const end = body.events.at(-1) as { event?: string; data?: { reason?: string } } | undefined;
    parts.push(
      `${body.events.length} events, ended with ${end?.event}${end?.data?.reason ? ` (${end.data.reason})` : ""}`,
    );
    if (said) parts.push(`assistant: ${said.slice(0, 500)}`);
  }
  return `${tool}: ${answer.status}${parts.length > 0 ? ` — ${parts.join(", ")}` : ""}`;
}

/** A route's answer as a tool result: the JSON body as structured content, one line of text. */
function routeResult(tool: string, answer: RouteAnswer): CallToolResult {
  const body =
    answer.body && typeof answer.body === "object" && !Array.isArray(answer.body) ? answer.body : {};
  return {
    content: [{ type: "text", text: describeAnswer(tool, answer) }],
    structuredContent: body as Record<string, unknown>,
    ...(answer.status >= 400 ? { isError: true } : {}),
  };
}

/** `check_composition`: the composition validation of writes and render starts, for the caller. */
async function checkComposition(
  deps: McpDeps,
  auth: KeyAuth | SessionAuth,
  composition: unknown,
): Promise<CallToolResult> {
  try {
    await validateCompositionFor(
      { db: deps.db, userId: auth.userId, now: deps.clock.now(), limits: deps.renderLimits },
      composition,
    );
    return {
      content: [{ type: "text", text: "check_composition: valid" }],
      structuredContent: { valid: true, problems: [] },
    };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "invalid_request") throw err;
    const problems = err.details ?? [{ path: "", message: err.message }];
    return {
      content: [
        {
          type: "text",
          text: `check_composition: ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems
            .map((p) => `${p.path || "/"} ${p.message}`)
            .join("; ")}`,
        },
      ],
      structuredContent: { valid: false, problems },
    };
  }
}

/** The MCP server of one request, answering as the caller `auth`. */
function createServer(
  app: App,
  deps: McpDeps,
  routes: Map<string, RouteInfo>,
  auth: KeyAuth | SessionAuth,
): Server {
  const server = new Server(
    { name: "cutroom", version: deps.version },
    { capabilities: { tools: {} }, instructions: ARGUMENT_CONVENTION },
  );
  const routeOf = (operationId: string) => {
    const route = routes.get(operationId);
    if (!route) throw new Error(`MCP tool names route ${operationId}, which is not registered`);
    return route;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: Tool[] = ROUTE_TOOLS.map((t) => {
      const route = routeOf(t.operationId);
      const described =
        t.description ?? [route.schema.summary, route.schema.description].filter(Boolean).join(". ");
      const scoped = route.scope ? `${described} (needs a key with the "${route.scope}" scope)` : described;
      return {
        name: t.name,
        description: `${/[.!?)]$/.test(scoped) ? scoped : `${scoped}.`} ${argumentsLine(route)}`,
        inputSchema: routeInputSchema(route),
        annotations: route.method === "GET" ? { readOnlyHint: true } : { readOnlyHint: false },
      };
    });
    tools.splice(
      ROUTE_TOOLS.findIndex((t) => t.name === "start_render"),
      0,
      CHECK_COMPOSITION,
    );
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (name === CHECK_COMPOSITION.name) {
      const refused = unexpectedArguments(
        name,
        args,
        ["body"],
        CHECK_RENAMED,
        Object.keys(CompositionWriteBody.properties),
      );
      if (refused) return routeResult(name, refused);
      return checkComposition(deps, auth, args.body);
    }
    const tool = ROUTE_TOOLS.find((t) => t.name === name);
    if (!tool) {
      return { content: [{ type: "text", text: `Unknown tool ${name}` }], isError: true };
    }
    const lent = lendAuth({ ...auth, mcp: true });
    try {
      return routeResult(name, await callRoute(app, name, routeOf(tool.operationId), args, lent.token));
    } finally {
      lent.release();
    }
  });
  return server;
}

const METHOD_NOT_ALLOWED = {
  jsonrpc: "2.0",
  error: {
    code: -32000,
    message: "Method not allowed: this server is stateless; POST JSON-RPC messages to /mcp",
  },
  id: null,
};

/**
 * The Model Context Protocol endpoint `/mcp` (Streamable HTTP, stateless: every POST carries
 * one JSON-RPC message and gets its answer as JSON; GET and DELETE answer 405). Authenticated
 * and counted like any API request (`Authorization: Bearer <key>`). Its tools are API routes
 * called on the caller's behalf (see `tools.ts`), plus `check_composition`. Call before the
 * routes are registered: it collects them as they are.
 */
export async function registerMcp(app: App, scopes: RouteScopes, deps: McpDeps): Promise<void> {
  const routes = collectRoutes(app);
  await scopes.key(app, (api) => registerEndpoint(app, api, routes, deps));
}

/** `/mcp` on the API scope `api`; tool calls go through the whole `app`. */
function registerEndpoint(app: App, api: KeyApp, routes: Map<string, RouteInfo>, deps: McpDeps): void {
  const hidden = { schema: { hide: true } };
  api.post("/mcp", hidden, async (request, reply) => {
    const auth = request.auth;
    const server = createServer(app, deps, routes, auth);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The SDK writes the response itself; the headers set so far (request id, quota) go with it.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value as string);
    }
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  for (const method of ["GET", "DELETE"] as const) {
    api.route({
      method,
      url: "/mcp",
      ...hidden,
      handler: async (_request, reply) => reply.code(405).header("allow", "POST").send(METHOD_NOT_ALLOWED),
    });
  }
}
