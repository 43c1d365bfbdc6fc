import type { FastifyRequest } from "fastify";
import { type ErrorDetail, invalidRequest } from "../../errors.ts";
import { stringProblem } from "../../text-guard.ts";
import type { App } from "../types.ts";
import { CONTEXT_LABEL } from "./error-handler.ts";

/** RFC 6901 escaping of one JSON Pointer reference token. */
const pointerToken = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

const MAX_DETAILS = 20;

/**
 * Deepest nesting of objects and arrays a request's JSON may have (the top-level value is
 * depth 0). No Cutroom schema nests beyond about a dozen levels (an OTIO timeline of nested
 * stacks included); free-form fields (`metadata`) deeper than this would only overflow the
 * call stack of whatever copies or serialises them.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Every string in `value` (object keys included) that {@link stringProblem} refuses, and every
 * object or array nested deeper than `maxDepth` (not walked further), as JSON Pointer details
 * (at most 20). Iterative, so any nesting depth JSON.parse accepts is walked without growing
 * the call stack; linear in the size of `value`.
 */
export function findBadStrings(value: unknown, maxDepth = Number.POSITIVE_INFINITY): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const stack: Array<[unknown, string, number]> = [[value, "", 0]];
  while (stack.length > 0 && details.length < MAX_DETAILS) {
    const [v, path, depth] = stack.pop() as [unknown, string, number];
    if (typeof v === "string") {
      const problem = stringProblem(v);
      if (problem) details.push({ path: path || "/", message: problem });
    } else if (typeof v === "object" && v !== null && depth >= maxDepth) {
      details.push({
        path: path || "/",
        message: `must not nest objects or arrays deeper than ${maxDepth} levels`,
      });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`, depth + 1]);
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child = `${path}/${pointerToken(key)}`;
        const problem = stringProblem(key);
        if (problem) details.push({ path: child, message: `property name ${problem}` });
        else stack.push([(v as Record<string, unknown>)[key], child, depth + 1]);
      }
    }
  }
  return details;
}

const PARTS = [
  ["params", (r: FastifyRequest) => r.params],
  ["querystring", (r: FastifyRequest) => r.query],
  ["body", (r: FastifyRequest) => r.body],
] as const;

/**
 * Refuses, on every route and before schema validation, any path parameter, query
 * parameter or JSON body string that contains a NUL character or an unpaired UTF-16
 * surrogate, and JSON nested deeper than {@link MAX_JSON_DEPTH}: 400 `invalid_request` whose
 * details point at each such field. Neither character can be stored in PostgreSQL text, and
 * neither belongs in a name, an id or a caption.
 */
export function registerStringGuard(app: App): void {
  app.addHook("preValidation", async (request) => {
    for (const [part, read] of PARTS) {
      const details = findBadStrings(read(request), MAX_JSON_DEPTH);
      if (details.length > 0) throw invalidRequest(CONTEXT_LABEL[part] as string, details);
    }
  });
}
