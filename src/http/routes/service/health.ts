import { Type } from "typebox";
import type { Database } from "../../../db/client.ts";
import { responses } from "../../schemas/common.ts";
import type { App } from "../../types.ts";

const DB_TIMEOUT_MS = 2000;

/**
 * Runs a readiness probe with a deadline.
 * @returns what `probe` resolves with.
 * @throws Error "timeout" when it has not settled within `ms`; else what `probe` throws.
 */
export async function probeWithin<T>(probe: () => Promise<T>, ms = DB_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `GET /api/v1/health`: database round trip; 503 when it does not answer within 2 s. */
export function registerHealth(app: App, deps: { database: Database }): void {
  app.get(
    "/api/v1/health",
    {
      config: { public: true, neverThrottle: true },
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
      try {
        const latency = await probeWithin(() => deps.database.ping());
        return { ok: true as const, dbLatencyMs: latency };
      } catch (err) {
        const message =
          (err as Error).message === "timeout"
            ? "database did not answer within 2 s"
            : "database unreachable";
        return reply.code(503).send({ ok: false as const, dbLatencyMs: null, error: message });
      }
    },
  );
}
