import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidRequest, unsupportedMediaType } from "../../errors.ts";
import type { App } from "../types.ts";

/** The JSON media types the API reads (JSON Patch bodies included). */
const JSON_TYPES = ["application/json", "application/json-patch+json"];

/**
 * Replaces Fastify's JSON body parser with one that decodes the body as strict UTF-8 first:
 * bytes that are not UTF-8 (RFC 8259 §8.1) are a 400 `invalid_request` instead of being
 * silently replaced with U+FFFD. The text is then parsed by Fastify's own parser (prototype
 * poisoning refused, empty bodies a 400), for `application/json` and
 * `application/json-patch+json` alike. Fastify's `text/plain` parser is removed (JSON sent as
 * text is a 415 like any other type no route reads), and a body with a `Content-Encoding` other
 * than `identity` (gzip, br…, which the server does not decode) is a 415 before it is read.
 */
export function registerJsonBodyParser(app: App): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.removeContentTypeParser("text/plain");
  app.addHook("preParsing", async (request, _reply, payload) => {
    const encoding = request.headers["content-encoding"]?.trim().toLowerCase();
    if (encoding && encoding !== "identity" && hasBody(request))
      throw unsupportedMediaType(
        `Content-Encoding ${JSON.stringify(encoding)} is not supported; send the body uncompressed`,
      );
    return payload;
  });
  app.addContentTypeParser(
    JSON_TYPES,
    { parseAs: "buffer" },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
      let text: string;
      try {
        text = decodeUtf8Body(body);
      } catch (error) {
        done(error as Error);
        return;
      }
      parseJson(request, text, done);
    },
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A request body as text, strictly UTF-8.
 * @throws AppError 400 `invalid_request` when the bytes are not UTF-8.
 */
export function decodeUtf8Body(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw invalidRequest("The request body is not valid UTF-8 (RFC 8259 requires UTF-8 JSON)");
  }
}

/**
 * Replaces the JSON parser of one plugin scope with `parse` (strict UTF-8 first, as above):
 * for routes whose bodies extend JSON, such as OpenTimelineIO documents. Takes the scope of any
 * route group (its raw request type is the group's).
 */
export function replaceJsonParser<Raw extends IncomingMessage>(
  scope: Pick<FastifyInstance<App["server"], Raw>, "removeContentTypeParser" | "addContentTypeParser">,
  bodyLimit: number,
  parse: (text: string) => unknown,
): void {
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit }, (_request, body, done) => {
    try {
      done(null, parse(decodeUtf8Body(body as Buffer)));
    } catch (error) {
      done(error as Error);
    }
  });
}

/** Whether the request declares a body (a non-zero Content-Length, or chunked). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined;
}
