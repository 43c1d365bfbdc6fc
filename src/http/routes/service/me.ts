import { Me } from "../../schemas/account.ts";
import { responses } from "../../schemas/common.ts";
import { type App, requireAuth } from "../../types.ts";

/** `GET /api/v1/me`: the key's owner, the key's details (never its secret) and the quota state. */
export function registerMe(app: App): void {
  app.get(
    "/api/v1/me",
    {
      schema: {
        operationId: "getMe",
        summary: "The calling key's owner, key and quota",
        tags: ["Service"],
        response: responses({ 200: Me }),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      // The auth statement already read the owner: no second round trip.
      return {
        user: {
          id: auth.userId,
          email: auth.user.email,
          name: auth.user.name,
          plan: auth.plan,
          createdAt: auth.user.createdAt.toISOString(),
          settings: { imageModel: auth.user.imageModel },
        },
        apiKey: {
          id: auth.key.id,
          name: auth.key.name,
          prefix: auth.key.prefix,
          scopes: auth.key.scopes,
          createdAt: auth.key.createdAt.toISOString(),
          lastUsedAt: auth.key.lastUsedAt?.toISOString() ?? null,
          revokedAt: null,
        },
        rateLimit: {
          limit: auth.quota.limit,
          remaining: auth.quota.remaining,
          resetAt: auth.quota.resetAt.toISOString(),
        },
      };
    },
  );
}
