/**
 * Every route that needs the `write` scope (docs/conventions.md, Scopes). The scope test checks this table
 * against the routes the app registered with `config.scope = "write"`, so a new write
 * route fails the suite until it is listed here — and then gets its 403 test for free.
 */
export const WRITE_ROUTES: { method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; url: string }[] = [
  { method: "POST", url: "/api/v1/projects" },
  { method: "PATCH", url: "/api/v1/projects/:projectId" },
  { method: "DELETE", url: "/api/v1/projects/:projectId" },
  { method: "PATCH", url: "/api/v1/me/settings" },
  { method: "POST", url: "/api/compositions" },
  { method: "POST", url: "/api/compositions/import" },
  { method: "PUT", url: "/api/compositions/:id" },
  { method: "PATCH", url: "/api/compositions/:id" },
  { method: "DELETE", url: "/api/compositions/:id" },
  { method: "POST", url: "/api/compositions/:id/revert" },
  { method: "POST", url: "/api/compositions/:id/relink" },
  { method: "POST", url: "/api/compositions/:id/reframe" },
  { method: "POST", url: "/api/v1/uploads" },
  { method: "DELETE", url: "/api/v1/uploads/:id" },
  { method: "POST", url: "/api/render" },
  { method: "DELETE", url: "/api/render/:jobId" },
  { method: "POST", url: "/api/v1/generate/image" },
  { method: "POST", url: "/api/v1/generate/video" },
  { method: "DELETE", url: "/api/v1/generations/:id" },
  { method: "POST", url: "/api/v1/transcriptions" },
  { method: "DELETE", url: "/api/v1/transcriptions/:id" },
  { method: "POST", url: "/api/v1/autoedit" },
  { method: "DELETE", url: "/api/v1/autoedits/:id" },
  { method: "POST", url: "/api/assistant/session" },
  { method: "DELETE", url: "/api/assistant/session/:id" },
  { method: "POST", url: "/api/assistant/orchestrator" },
  { method: "POST", url: "/api/assistant/runs/:runId/cancel" },
  { method: "POST", url: "/api/v1/webhooks" },
  { method: "PATCH", url: "/api/v1/webhooks/:id" },
  { method: "DELETE", url: "/api/v1/webhooks/:id" },
  { method: "POST", url: "/api/v1/webhooks/:id/rotate-secret" },
  { method: "POST", url: "/api/v1/webhooks/:id/test" },
  { method: "POST", url: "/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver" },
  // Reading the callback secret reveals a secret: write scope, like creating an endpoint.
  { method: "GET", url: "/api/v1/webhooks/callback-secret" },
  { method: "POST", url: "/api/v1/webhooks/callback-secret/rotate" },
];
