import type { FastifyRequest } from "fastify";
import { invalidRequest } from "../../errors.ts";
import type { App } from "../types.ts";

/** The JSON media types the API reads (JSON Patch bodies included). */
const JSON_TYPES = ["application/json", "application/json-patch+json"];

/**
 * Replaces Fastify's JSON body parser with one that decodes the body as strict UTF-8 first:
 * bytes that are not UTF-8 (RFC 8259 §8.1) are a 400 `invalid_request` instead of being
 * silently replaced with U+FFFD. The text is then parsed by Fastify's own parser (prototype
 * poisoning refused, empty bodies a 400), for `application/json` and
 * `application/json-patch+json` alike.
 */
export function registerJsonBodyParser(app: App): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    JSON_TYPES,
    { parseAs: "buffer" },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        done(invalidRequest("The request body is not valid UTF-8 (RFC 8259 requires UTF-8 JSON)"));
        return;
      }
      parseJson(request, text, done);
    },
  );
}
