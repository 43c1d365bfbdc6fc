/**
 * Calling an API route as an MCP tool: the tool's input schema is made of the route's own
 * TypeBox schemas in the tools' one dialect (see `arguments.ts`: the resource's path id as `id`,
 * other path parameters, query and header fields at the top level, the JSON body under `body`),
 * and a call is an in-process request (`app.inject`) on the caller's behalf.
 */
import { createParser } from "eventsource-parser";
import type { RouteOptions } from "fastify";
import { ON_BEHALF_HEADER } from "../plugins/auth.ts";
import type { App } from "../types.ts";
import { pathArgumentNames, unexpectedArguments } from "./arguments.ts";

/** What a route tool needs of a route: method, URL pattern and schema. */
export interface RouteInfo {
  method: string;
  url: string;
  schema: {
    summary?: string;
    description?: string;
    params?: JsonObjectSchema;
    querystring?: JsonObjectSchema;
    headers?: JsonObjectSchema;
    body?: unknown;
    consumes?: string[];
  };
  /** The scope a key needs (`write`), when beyond `read`. */
  scope?: string;
}

interface JsonObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** A JSON Schema object as MCP's `tools/list` carries it. */
export interface ToolInputSchema {
  type: "object";
  properties: Record<string, object>;
  required?: string[];
  additionalProperties: false;
  [key: string]: unknown;
}

/** The route's answer: status and body (JSON; an event stream as its list of events; null when empty). */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

/** One event of a `text/event-stream` answer. */
export interface StreamEvent {
  id?: string;
  event?: string;
  data: unknown;
}

/** Plain JSON of a TypeBox schema (TypeBox's own symbol keys dropped). */
const plain = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema));

/**
 * Collects the routes that have an `operationId`, as they are registered (call before any route
 * is registered). The map fills as the app registers its routes.
 */
export function collectRoutes(app: App): Map<string, RouteInfo> {
  const routes = new Map<string, RouteInfo>();
  app.addHook("onRoute", (route: RouteOptions) => {
    const schema = route.schema as (RouteInfo["schema"] & { operationId?: string }) | undefined;
    const method = [route.method].flat()[0];
    if (!schema?.operationId || !method || method === "HEAD") return;
    routes.set(schema.operationId, {
      method,
      url: route.url,
      schema,
      ...(route.config?.scope ? { scope: route.config.scope } : {}),
    });
  });
  return routes;
}

/**
 * The tool input schema of a route: its path parameters (the last one as `id`, see
 * `pathArgumentNames`), query fields and header fields at the top level (required where the route
 * requires them) and its body, when it has one, under `body`.
 */
export function routeInputSchema(route: RouteInfo): ToolInputSchema {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const params = route.schema.params;
  for (const [param, arg] of pathArgumentNames(route.url)) {
    const schema = (plain(params?.properties?.[param] ?? { type: "string" }) ?? {}) as Record<
      string,
      unknown
    >;
    properties[arg] = {
      ...schema,
      description: `${schema.description ? `${schema.description}. ` : ""}The {${param}} of ${route.method} ${route.url.replace(/:(\w+)/g, "{$1}")}`,
    };
    required.push(arg);
  }
  for (const part of [route.schema.querystring, route.schema.headers]) {
    if (!part?.properties) continue;
    Object.assign(properties, plain(part.properties) as Record<string, object>);
    required.push(...(part.required ?? []));
  }
  if (route.schema.body !== undefined) {
    properties.body = plain(route.schema.body) as object;
    required.push("body");
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * One line for a tool's description saying how it takes its arguments, e.g.
 * "Arguments: `id` (the render's id in the path), `body` (the JSON request body)."
 */
export function argumentsLine(route: RouteInfo): string {
  const parts: string[] = [];
  for (const arg of pathArgumentNames(route.url).values()) {
    parts.push(arg === "id" ? "`id` (the id in the path)" : `\`${arg}\` (in the path)`);
  }
  const names = (part: JsonObjectSchema | undefined) =>
    Object.keys(part?.properties ?? {})
      .map((k) => `\`${k}\``)
      .join(", ");
  const query = names(route.schema.querystring);
  if (query) parts.push(`${query} (query)`);
  const headers = names(route.schema.headers);
  if (headers) parts.push(`${headers} (header)`);
  if (route.schema.body !== undefined) parts.push("`body` (the JSON request body)");
  return parts.length > 0 ? `Arguments: ${parts.join(", ")}.` : "No arguments.";
}

/** The fields of a route's JSON body, when it is an object with named properties. */
function bodyFields(route: RouteInfo): string[] {
  const body = route.schema.body as JsonObjectSchema | undefined;
  return Object.keys(body?.properties ?? {});
}

/** Parses an event-stream body into its events (`data` parsed as JSON when it is). */
function parseEventStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const parser = createParser({
    onEvent(e) {
      let data: unknown = e.data;
      try {
        data = JSON.parse(e.data);
      } catch {
        // Not JSON: kept as sent.
      }
      events.push({ ...(e.id ? { id: e.id } : {}), ...(e.event ? { event: e.event } : {}), data });
    },
  });
  parser.feed(text);
  return events;
}

/**
 * Calls `route` in-process with the arguments of the tool named `tool`, on behalf of the caller
 * whose lent token is `onBehalf` (see `lendAuth`). Path parameters (strings, or numbers for
 * integer ones) are taken from the arguments (`id` for the last one, see `pathArgumentNames`); a
 * missing one, or an argument the tool does not take (naming the one it expects, e.g. `jobId` →
 * `id`), answers 400 like an invalid field would.
 */
export async function callRoute(
  app: App,
  tool: string,
  route: RouteInfo,
  args: Record<string, unknown>,
  onBehalf: string,
): Promise<RouteAnswer> {
  const argNames = pathArgumentNames(route.url);
  const accepted = Object.keys(routeInputSchema(route).properties);
  const renamed = new Map([...argNames].filter(([param, arg]) => param !== arg));
  const refused = unexpectedArguments(tool, args, accepted, renamed, bodyFields(route));
  if (refused) return refused;
  const missing: string[] = [];
  const url = route.url.replace(/:(\w+)/g, (_m, param: string) => {
    const name = argNames.get(param) ?? param;
    const value = args[name];
    if ((typeof value !== "string" && typeof value !== "number") || value === "") missing.push(name);
    return encodeURIComponent(String(value ?? ""));
  });
  if (missing.length > 0) {
    return {
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `Missing ${missing.map((name) => `\`${name}\``).join(", ")}`,
          details: missing.map((name) => ({ path: `/${name}`, message: "is required" })),
        },
      },
    };
  }
  const pick = (part: JsonObjectSchema | undefined) =>
    Object.fromEntries(
      Object.keys(part?.properties ?? {})
        .filter((k) => args[k] !== undefined)
        .map((k) => [k, String(args[k])]),
    );
  const hasBody = route.schema.body !== undefined;
  const res = await app.inject({
    method: route.method as "GET",
    url,
    query: pick(route.schema.querystring),
    headers: {
      ...pick(route.schema.headers),
      [ON_BEHALF_HEADER]: onBehalf,
      ...(hasBody ? { "content-type": route.schema.consumes?.[0] ?? "application/json" } : {}),
    },
    ...(hasBody ? { payload: JSON.stringify(args.body ?? null) } : {}),
  });
  const type = String(res.headers["content-type"] ?? "");
  const body = type.startsWith("text/event-stream")
    ? { events: parseEventStream(res.body) }
    : res.body
      ? (JSON.parse(res.body) as unknown)
      : null;
  return { status: res.statusCode, body };
}
