import { Type } from "typebox";
import type { Database } from "../../../db/client.ts";
import { checkDatabase } from "../../../domain/service/health.ts";
import { responses } from "../../schemas/common.ts";
import type { PublicApp } from "../../types.ts";

/** `GET /api/v1/health`: database round trip; 503 when it does not answer within 2 s. */
export function registerHealth(app: PublicApp, deps: { database: Database }): void {
  app.get(
    "/api/v1/health",
    {
      schema: {
        operationId: "getHealth",
        summary: "Health check",
        description: "Checks the database with one round trip. Needs no key and is never rate-limited.",
        tags: ["Service"],
        security: [],
        response: responses(
          {
            200: Type.Object(
              {
                ok: Type.Literal(true),
                dbLatencyMs: Type.Number({ description: "Database round trip, ms" }),
              },
              { examples: [{ ok: true, dbLatencyMs: 0.42 }] },
            ),
            503: Type.Object({
              ok: Type.Literal(false),
              dbLatencyMs: Type.Null(),
              error: Type.String(),
            }),
          },
          [400, 500],
        ),
      },
    },
    async (_request, reply) => {
      const health = await checkDatabase(deps.database);
      if (health.ok) return { ok: true as const, dbLatencyMs: health.latencyMs };
      return reply.code(503).send({ ok: false as const, dbLatencyMs: null, error: health.error });
    },
  );
}
