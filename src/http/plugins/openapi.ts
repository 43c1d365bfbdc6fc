import swagger from "@fastify/swagger";
import scalar from "@scalar/fastify-api-reference";
import { Autoedit } from "../schemas/autoedit.ts";
import { ERROR_SCHEMA_ID, ErrorResponse } from "../schemas/common.ts";
import { Generation } from "../schemas/generation.ts";
import { Render } from "../schemas/render.ts";
import { Transcription } from "../schemas/transcription.ts";
import { Upload } from "../schemas/upload.ts";
import { webhookMessagesDoc } from "../schemas/webhook.ts";
import type { App } from "../types.ts";
import examples from "./openapi-examples.json" with { type: "json" };
import { completeResponses } from "./openapi-responses.ts";
import type { RouteScopes } from "./scopes.ts";

/** Operation tags, in the order the reference page shows them. */
export const TAGS = [
  { name: "Service", description: "Health, account and the API description" },
  {
    name: "Console",
    description:
      "Sign-in, sessions, API keys and phone capture links of the web console. Key, session and capture-link management accept only the console session cookie.",
  },
  { name: "Projects", description: "Projects group uploads and compositions" },
  { name: "Uploads", description: "Media files: upload, probe, signed URLs" },
  {
    name: "Analysis",
    description: "Chapters, summaries and B-roll spots from transcripts (no vendor calls)",
  },
  { name: "Generation", description: "Image generation and still-to-video" },
  {
    name: "Transcription",
    description:
      "Speech to text of an upload (offline PocketSphinx by default, or a configured engine) and its caption exports",
  },
  { name: "Assistant", description: "Assistant sessions and the orchestrator stream" },
  { name: "Compositions", description: "Timelines of tracks and clips" },
  { name: "Renders", description: "Render jobs that turn a composition into a file" },
  {
    name: "Auto-edit",
    description:
      "From a long recording to ranked short clips as compositions, one version per automated step (offline)",
  },
  {
    name: "Webhooks",
    description:
      "Signed event messages (Standard Webhooks) to your endpoints and to a job's `callbackUrl`, with retries and a delivery log",
  },
];

/**
 * Registers @fastify/swagger (OpenAPI 3.1 generated from the route schemas, with the
 * bearer security scheme and the shared error body), `GET /api/v1/openapi.json` and the
 * interactive reference at `/docs` (Scalar, served from the package: no CDN, no web fonts,
 * no telemetry, so the page works offline), both public.
 * Must be registered before the routes it documents.
 */
export async function registerOpenApi(
  app: App,
  scopes: RouteScopes,
  opts: { publicUrl: string; version: string },
): Promise<void> {
  app.addSchema(ErrorResponse);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Cutroom API",
        version: opts.version,
        description:
          "Self-hostable media-editing HTTP API. Authenticate with `Authorization: Bearer <key>`. " +
          "Every response carries X-Request-Id and X-RateLimit-* headers; errors share one body shape.",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: opts.publicUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description:
              "API key `crk_…` created in the console or with the CLI (or, on POST /api/v1/uploads only, a phone capture token `crc_…`)",
          },
          cookieAuth: {
            type: "apiKey",
            in: "cookie",
            name: "cutroom_session",
            description:
              "Console session cookie set by POST /api/v1/auth/login; every write sent with it must carry the session's CSRF token in `X-CSRF-Token`",
          },
        },
      },
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      webhooks: webhookMessagesDoc({
        render: Render,
        generation: Generation,
        transcription: Transcription,
        upload: Upload,
        autoedit: Autoedit,
      }),
    },
    // Descriptions, headers and recorded examples of success responses (openapi-responses.ts).
    transformObject: (documents) =>
      "openapiObject" in documents
        ? completeResponses(documents.openapiObject as Record<string, unknown>, examples)
        : documents.swaggerObject,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
  });

  await scopes.public(app, async (docs) => {
    docs.get("/api/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
    await docs.register(scalar, {
      routePrefix: "/docs",
      configuration: {
        url: "/api/v1/openapi.json",
        title: "Cutroom API reference",
        // Offline: the default Inter font comes from fonts.scalar.com; system fonts instead.
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        // Nothing that leaves the machine: no "Open API Client" button (client.scalar.com) and no
        // developer toolbar (its share and deploy links go to scalar.com; shown on localhost).
        hideClientButton: true,
        showDeveloperTools: "never",
      },
    });
  });
}

export { ERROR_SCHEMA_ID };
