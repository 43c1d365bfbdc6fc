/**
 * The one way every MCP tool takes its arguments:
 * - the id of the resource a tool acts on (its route's last path parameter, whatever the REST
 *   path calls it: `{id}`, `{jobId}`) is `id`; other path parameters keep their names (a nested resource, e.g. a version
 *   of a composition, keeps `id` for its parent and its own name, `version`);
 * - the JSON request body, when there is one, is `body`;
 * - query and header fields are top-level arguments under their own names.
 * An argument outside the tool's schema is refused with the name it should have had.
 */

/** What the server tells an agent about its tools' arguments (MCP `instructions`). */
export const ARGUMENT_CONVENTION =
  "Every tool takes its arguments the same way: the id of the resource it acts on is `id` (the `id` that list, create and start tools return; e.g. get_render and cancel_render take start_render's `id`); the JSON request body, when the tool has one, is `body` (create_composition, patch_composition, check_composition, start_render …); a version of a composition is named by `id` (the composition) and `version`; query and header fields are top-level arguments under their own names (`limit`, `cursor`, `if-match`). An argument a tool does not take is refused with the name it expects. Results are the REST API's JSON answers as structured content; a refused call is a tool error carrying the API's error body (`error.code`, `error.message`, `error.details`).";

/** The route's path parameters in URL order, e.g. `["jobId"]` for `/api/render/:jobId`. */
export function pathParameters(url: string): string[] {
  return [...url.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
}

/**
 * The tool argument of each path parameter: the last one is `id`, the others keep their names;
 * when a parent is already `id` (a version of a composition), every one keeps its name.
 * @returns path parameter → argument name, in URL order.
 */
export function pathArgumentNames(url: string): Map<string, string> {
  const params = pathParameters(url);
  // A nested resource (`/compositions/:id/versions/:version`) keeps its REST names: its parent
  // already answers to `id`.
  const parentIsId = params.slice(0, -1).includes("id");
  return new Map(params.map((name, i) => [name, i === params.length - 1 && !parentIsId ? "id" : name]));
}

/** A tool's 400: the API's error body, with one detail per refused argument. */
export interface ArgumentError {
  status: 400;
  body: {
    error: { code: "invalid_request"; message: string; details: { path: string; message: string }[] };
  };
}

/**
 * Refuses arguments the tool does not take, naming the one expected instead when there is one:
 * a name in `renamed` (a path parameter's REST name such as `jobId`, an older argument name) or
 * a field of the body sent at the top level.
 *
 * @param tool - the tool's name, for the message.
 * @param accepted - the argument names of the tool's input schema.
 * @param renamed - argument name the tool does not take → the argument that carries it (`jobId` → `id`).
 * @param bodyFields - the top-level fields of the tool's `body`, when it has one.
 * @returns the error to answer, or null when every argument is taken.
 */
export function unexpectedArguments(
  tool: string,
  args: Record<string, unknown>,
  accepted: readonly string[],
  renamed: ReadonlyMap<string, string>,
  bodyFields: readonly string[] = [],
): ArgumentError | null {
  const takes =
    accepted.length > 0
      ? `${tool} takes ${accepted.map((a) => `\`${a}\``).join(", ")}`
      : `${tool} takes none`;
  const refused = Object.keys(args)
    .filter((name) => !accepted.includes(name))
    .map((name) => {
      const instead = renamed.get(name);
      const hint = instead
        ? `send it as \`${instead}\``
        : bodyFields.includes(name)
          ? "it is a field of `body`: send it inside `body`"
          : takes;
      return { name, hint };
    });
  const first = refused[0];
  if (!first) return null;
  const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : "";
  return {
    status: 400,
    body: {
      error: {
        code: "invalid_request",
        message: `${tool} does not take \`${first.name}\`: ${first.hint}${more}`,
        details: refused.map(({ name, hint }) => ({
          path: `/${name}`,
          message: `is not an argument of ${tool}: ${hint}`,
        })),
      },
    },
  };
}
