import { AjvCompiler, type BuildCompilerFromPool } from "@fastify/ajv-compiler";
import cookie from "@fastify/cookie";
import multipart from "@fastify/multipart";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import { registerMcp } from "./http/mcp/server.ts";
import { registerAuth } from "./http/plugins/auth.ts";
import { handleClientError, handleError, handleFrameworkError } from "./http/plugins/error-handler.ts";
import { registerJsonBodyParser } from "./http/plugins/json-body.ts";
import { registerLingeringClose } from "./http/plugins/lingering-close.ts";
import { registerMetrics } from "./http/plugins/metrics.ts";
import { registerNotFound } from "./http/plugins/not-found.ts";
import { registerOpenApi } from "./http/plugins/openapi.ts";
import { requestIdFor } from "./http/plugins/request-id.ts";
import { registerRequestSignal } from "./http/plugins/request-signal.ts";
import { routeScopes } from "./http/plugins/scopes.ts";
import { registerStringGuard } from "./http/plugins/string-guard.ts";
import { registerAnalysisRoutes } from "./http/routes/analysis/index.ts";
import { registerAssistantRoutes } from "./http/routes/assistant/index.ts";
import { registerAutoeditRoutes } from "./http/routes/autoedits/index.ts";
import { registerFrameRoute } from "./http/routes/compositions/frame.ts";
import { registerCompositionRoutes } from "./http/routes/compositions/index.ts";
import { registerInterchangeRoutes } from "./http/routes/compositions/interchange.ts";
import { registerPreviewRoute } from "./http/routes/compositions/preview.ts";
import { registerReframeRoute } from "./http/routes/compositions/reframe.ts";
import { registerConsoleAuthRoutes } from "./http/routes/console/auth.ts";
import { registerCaptureTokenRoutes } from "./http/routes/console/capture-tokens.ts";
import { registerKeyRoutes } from "./http/routes/console/keys.ts";
import { registerConsoleStatic } from "./http/routes/console/static.ts";
import { registerFileRoute } from "./http/routes/files.ts";
import { registerGenerationRoutes } from "./http/routes/generations/index.ts";
import { registerGenerationModelsRoute } from "./http/routes/generations/models.ts";
import { registerProjectRoutes } from "./http/routes/projects/index.ts";
import { registerRenderCheckRoutes } from "./http/routes/renders/check.ts";
import { registerRenderRoutes } from "./http/routes/renders/index.ts";
import { registerHealth } from "./http/routes/service/health.ts";
import { registerMe } from "./http/routes/service/me.ts";
import { registerTranscriptionRoutes } from "./http/routes/transcriptions/index.ts";
import { registerUploadAnalysisRoute } from "./http/routes/uploads/analysis.ts";
import { registerCreateUploadsRoute, registerUploadRoutes } from "./http/routes/uploads/index.ts";
import { registerWebhookRoutes } from "./http/routes/webhooks/index.ts";
import type { App } from "./http/types.ts";
import type { RuntimeParts } from "./runtime.ts";
import type { ApiServices } from "./services.ts";

/** What the HTTP app is built from: the process's runtime and the services built over it. */
export interface AppDeps {
  /** Configuration, database, blob store, clock and the logger the app logs through. */
  runtime: Pick<RuntimeParts, "config" | "database" | "store" | "clock" | "log">;
  /** The API role's services (`buildServices(runtime, { role: "api" })`, or `"both"`). */
  services: ApiServices;
  version?: string;
}

/**
 * Fastify's validator factory with one Ajv per coercion rule: JSON bodies are validated as
 * sent (`"name": true` is not a string, `null` is not a number), while path and query
 * parameters, which arrive as text, are still coerced to the numbers and booleans their
 * schemas declare.
 */
function buildValidatorByPart(): BuildCompilerFromPool {
  const pool = AjvCompiler();
  return (externalSchemas, options) => {
    const coercing = pool(externalSchemas, options);
    const strict = pool(externalSchemas, {
      ...options,
      mode: undefined,
      customOptions: { ...(options?.customOptions as object), coerceTypes: false },
    });
    // Fastify calls the compiler with its route definition ({ schema, url, method, httpPart }).
    return (route) => ((route as { httpPart?: string }).httpPart === "body" ? strict : coercing)(route);
  };
}

/**
 * Builds the Fastify app with every plugin and route registered, in order, in one place, over
 * the services it is given (see `buildServices`). Closing the app closes the assistant before
 * the server stops (`preClose`) and the notification listener last (`onClose`).
 * Never listens: entry points (src/main/*) own `listen`, signals and shutdown.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { runtime, services } = deps;
  const { config, database, store, clock } = runtime;
  const { enqueue, flows, events, providers, transcribers, notifications, assistant } = services;
  const app = Fastify({
    loggerInstance: runtime.log,
    genReqId: requestIdFor,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Reject unknown fields (schemas say additionalProperties: false) instead of silently dropping them.
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    schemaController: { compilersFactory: { buildValidator: buildValidatorByPart() } },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setErrorHandler(handleError);
  registerJsonBodyParser(app);
  registerStringGuard(app);
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("X-Request-Id", request.id);
    done();
  });
  registerRequestSignal(app);
  // The reference page's own routes are not part of the API description.
  app.addHook("onRoute", (route) => {
    if (route.url.startsWith("/docs")) route.schema = { ...(route.schema ?? {}), hide: true };
  });
  const writeRoutes: string[] = [];
  app.addHook("onRoute", (route) => {
    if (route.config?.scope === "write") {
      for (const m of [route.method].flat()) writeRoutes.push(`${m} ${route.url}`);
    }
  });
  app.decorate("writeRoutes", () => [...writeRoutes]);
  registerNotFound(app);
  registerLingeringClose(app, { lingerMs: 5000 });
  const metricsRoute = config.metricsEnabled ? registerMetrics(app, { sql: database.sql }) : undefined;
  await app.register(cookie);
  // Every route is registered in a scope whose onRequest hook authenticates and counts its calls.
  const scopes = routeScopes(
    app,
    registerAuth(app, {
      db: database.hotDb,
      sql: database.hotSql,
      clock,
      anonDailyLimit: config.anonDailyLimit,
      filesDailyLimit: config.filesDailyLimit,
      planLimits: config.planLimits,
    }),
  );
  if (metricsRoute) await scopes.public(app, metricsRoute);
  await registerOpenApi(app, scopes, { publicUrl: config.publicUrl, version: deps.version ?? "0.1.0" });

  const db = database.db;
  const ttl = config.signedUrlTtlSec;
  const allowPrivate = config.webhooks.allowPrivate;
  // Before the routes: its tools are routes, collected as they are registered.
  await registerMcp(app, scopes, {
    db,
    clock,
    renderLimits: config.renderLimits,
    version: deps.version ?? "0.1.0",
  });
  await scopes.public(app, (health) => registerHealth(health, { database }), "never-refused");
  await scopes.key(app, (api) => registerMe(api, { db }));
  await registerConsoleAuthRoutes(app, scopes, { db, clock, config });
  await scopes.console(app, (console) => {
    registerKeyRoutes(console, { db, clock });
    registerCaptureTokenRoutes(console, { db, clock, publicUrl: config.publicUrl });
  });
  await scopes.public(app, (files) => registerConsoleStatic(files, { dir: config.consoleDir }), "none");
  await scopes.key(app, (api) => {
    registerProjectRoutes(api, { db, store, clock });
    registerAnalysisRoutes(api, {
      threads: config.analysisThreads,
      inlineMaxChars: config.analysisInlineMaxChars,
      timeoutSec: config.analysisTimeoutSec,
      maxQueue: 8 * config.analysisThreads,
    });
  });
  await scopes.public(app, (files) => registerFileRoute(files, { store }), "files");
  // Multipart parsing is scoped to the upload routes: the plugin adds an onRequest and an
  // onResponse hook to every request of the context it is registered in.
  const multipartOptions = {
    // One byte over our limit so that ingest's own check trips first and names the file.
    limits: {
      fileSize: config.uploadMaxBytes + 1,
      files: 20,
      fields: 10,
      fieldSize: 1024,
      parts: 30,
      headerPairs: 100,
    },
  };
  const uploadDeps = {
    db,
    store,
    uploadMaxBytes: config.uploadMaxBytes,
    signedUrlTtlSec: ttl,
    events,
    enqueue,
    transcription: { clock, enqueue, transcriber: transcribers.active },
  };
  await scopes.capture(app, async (capture) => {
    await capture.register(multipart, multipartOptions);
    registerCreateUploadsRoute(capture, uploadDeps);
  });
  await scopes.key(app, async (uploads) => {
    await uploads.register(multipart, multipartOptions);
    registerUploadRoutes(uploads, uploadDeps);
  });
  // Wake-ups from other processes (assistant run events, settled generations); closed last.
  app.addHook("onClose", () => notifications.close());
  app.addHook("preClose", () => assistant.close());
  app.addHook("onClose", () => services.faces.close());
  await scopes.key(app, (api) => {
    registerUploadAnalysisRoute(api, { db, store, clock, workRoot: config.workDir });
    registerCompositionRoutes(api, { db, clock, renderLimits: config.renderLimits });
    registerReframeRoute(api, {
      db,
      clock,
      store,
      workRoot: config.workDir,
      renderLimits: config.renderLimits,
      faces: services.faces,
    });
    registerFrameRoute(api, { frames: services.frames });
    registerPreviewRoute(api, { previews: services.previews });
    registerInterchangeRoutes(api, {
      db,
      clock,
      store,
      signedUrlTtlSec: ttl,
      renderLimits: config.renderLimits,
    });
    registerRenderRoutes(api, {
      db,
      clock,
      enqueue,
      flows,
      events,
      allowPrivateCallbacks: allowPrivate,
      store,
      signedUrlTtlSec: ttl,
      renderLimits: config.renderLimits,
    });
    registerRenderCheckRoutes(api, {
      db,
      clock,
      store,
      renderLimits: config.renderLimits,
      workRoot: config.workDir,
    });
    registerGenerationModelsRoute(api, { generation: config.generation });
    registerGenerationRoutes(api, {
      db,
      clock,
      store,
      signedUrlTtlSec: ttl,
      generation: config.generation,
      enqueue,
      providers,
      notifications,
      allowPrivateCallbacks: allowPrivate,
    });
    registerTranscriptionRoutes(api, {
      db,
      clock,
      enqueue,
      transcriber: transcribers.active,
      engines: transcribers.byProvider,
      allowPrivateCallbacks: allowPrivate,
    });
    registerAutoeditRoutes(api, { db, clock, enqueue, allowPrivateCallbacks: allowPrivate });
    registerWebhookRoutes(api, { db, clock, enqueue, allowPrivate });
    registerAssistantRoutes(api, { db, clock, assistant });
  });

  return app;
}
