/**
 * Generates TypeScript types (openapi-typescript) from an OpenAPI document written by
 * scripts/dump-openapi.ts, for the web console and the TypeScript client. Binary strings
 * (`format: binary`, the multipart file parts) become `Blob`, so a typed FormData body needs
 * no cast. Usage: node scripts/openapi-types.ts <openapi.json> <out.d.ts>...
 */
import { readFileSync, writeFileSync } from "node:fs";
import openapiTS, { type OpenAPI3 } from "openapi-typescript";

const [input, ...outputs] = process.argv.slice(2);
if (!input || outputs.length === 0) {
  process.stderr.write("usage: node scripts/openapi-types.ts <openapi.json> <out.d.ts>...\n");
  process.exit(2);
}
const document: OpenAPI3 = JSON.parse(readFileSync(input, "utf8"));
const types = await openapiTS(document, {
  transform: (schema) => ("format" in schema && schema.format === "binary" ? "Blob" : undefined),
});
for (const out of outputs) writeFileSync(out, types);
