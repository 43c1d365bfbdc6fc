import { existsSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../../errors.ts";
import type { PublicApp } from "../../types.ts";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cutroom console</title></head>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The web console is not built</h1>
<p>The API works, but the console's files are missing. Build them with <code>npm run build:console</code>
(<code>bash scripts/start.sh</code> does it by itself), then reload this page.</p></body></html>`;

/**
 * Serves the built web console (a single-page app) under `/console` and the phone capture page
 * under `/capture/<token>`: files from `dir/assets`, and `dir/index.html` for every other path
 * so the app's own router decides. Without a build, those paths answer 503 with a page that
 * says how to build it; the API is unaffected. Not counted against any quota.
 */
export async function registerConsoleStatic(app: PublicApp, opts: { dir: string }): Promise<void> {
  const built = existsSync(path.join(opts.dir, "index.html"));
  await app.register(async (scope) => {
    scope.addHook("onRoute", (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    const assets = path.join(opts.dir, "assets");
    // Files are sent by our own routes (serve: false) so that a missing one is a plain 404.
    if (built) await scope.register(fastifyStatic, { root: assets, serve: false });
    scope.get("/console/assets/*", async (request, reply) => {
      const name = (request.params as { "*": string })["*"];
      if (!built || !/^[\w.-]+$/.test(name) || !existsSync(path.join(assets, name))) {
        throw new AppError("not_found", `No console file ${name}`);
      }
      return reply.sendFile(name, assets, { immutable: true, maxAge: "365d" });
    });
    const sendApp = async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header("Referrer-Policy", "no-referrer").header("X-Frame-Options", "DENY");
      reply.header("Cache-Control", "no-cache");
      if (!built) return reply.code(503).type("text/html; charset=utf-8").send(NOT_BUILT);
      return reply.sendFile("index.html", opts.dir);
    };
    for (const url of ["/console", "/console/*", "/capture/*"]) scope.get(url, sendApp);
  });
}
