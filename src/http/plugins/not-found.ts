import FindMyWay, { type HTTPMethod } from "find-my-way";
import { AppError } from "../../errors.ts";
import type { App } from "../types.ts";

const METHODS: HTTPMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Unknown routes: 405 `method_not_allowed` with an `Allow` header when the path exists
 * under another method, else 404 `not_found`. A shadow router mirrors every registered
 * route (via onRoute) so the check uses Fastify's own matching rules.
 * Must be called before any route is registered.
 */
export function registerNotFound(app: App): void {
  const shadow = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      try {
        shadow.on(m as HTTPMethod, route.url, () => {});
      } catch {
        // Duplicate shapes (e.g. HEAD auto-added for GET) are already present.
      }
    }
  });
  app.setNotFoundHandler(async (request) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = METHODS.filter((m) => m !== request.method && shadow.find(m, path) !== null);
    if (allowed.length > 0) {
      throw new AppError("method_not_allowed", `${request.method} is not allowed on ${path}`, {
        headers: { Allow: allowed.join(", ") },
      });
    }
    throw new AppError("not_found", `No route ${request.method} ${path}`);
  });
}
