import { invalidRequest } from "../../errors.ts";

/** Largest integer JSON numbers keep exactly in JavaScript (2^53 − 1). */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** JSON strings, OTIO's non-finite tokens and numbers, in document order. */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:Infinity|Inf)(?![\w.])|NaN(?![\w.])|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Parses the JSON OpenTimelineIO writes, which extends JSON with the bare tokens `Inf`,
 * `-Inf`, `Infinity`, `-Infinity` and `NaN`, and may hold integers beyond 2^53. Those become
 * strings (`"Inf"`, `"-Infinity"`, `"NaN"`, the integer's digits), so that metadata keeps them
 * exactly; a time or rate given that way fails the document's validation with a clear path.
 * Keys `__proto__` and `constructor` are refused, as the server's JSON parser does.
 *
 * @param text - the document as sent.
 * @throws AppError 400 `invalid_request` when the text is not JSON with these extensions.
 */
export function parseOtioJson(text: string): unknown {
  // Strings are matched first, so tokens inside them stay as they are.
  const out = text.replace(TOKENS, (match: string) => {
    if (match.startsWith('"')) return match;
    if (/^-?(?:Inf|NaN)/.test(match)) return `"${match}"`;
    if (!/^-?\d+$/.test(match)) return match;
    const value = BigInt(match);
    return value > SAFE || value < -SAFE ? `"${match}"` : match;
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(out);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidRequest(`The body is not OpenTimelineIO JSON: ${reason}`, [{ path: "", message: reason }]);
  }
  const forbidden = forbiddenKey(parsed);
  if (forbidden) {
    const reason = `key "${forbidden}" is not allowed`;
    throw invalidRequest(`The body is not OpenTimelineIO JSON: ${reason}`, [{ path: "", message: reason }]);
  }
  return parsed;
}

/**
 * The first `__proto__` or `constructor` key anywhere in `value`, or null. Walked with an
 * explicit stack (JSON.parse's reviver recurses, and a deeply nested body would overflow the
 * call stack before the request's nesting limit could refuse it with a path).
 */
function forbiddenKey(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (key === "__proto__" || key === "constructor") return key;
      stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return null;
}
