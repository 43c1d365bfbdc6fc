import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import { effectiveImageModelId } from "../../../domain/generation/models.ts";
import { setImageModelPreference } from "../../../domain/generation/preference.ts";
import { resetAtIso } from "../../../domain/quota/daily-quota.ts";
import { presentApiKey } from "../../presenters/api-keys.ts";
import { presentUser } from "../../presenters/users.ts";
import { Me, SettingsUpdate, User } from "../../schemas/account.ts";
import { AUTH_ERRORS, responses } from "../../schemas/common.ts";
import type { KeyApp, KeyAuth, SessionAuth } from "../../types.ts";

type Presented = { user: Record<string, unknown>; apiKey: Record<string, unknown> | null };

/** The user and key as `/me` shows them, built once per identity (the auth hook shares one per statement). */
const presented = new WeakMap<object, Presented>();

function present(auth: KeyAuth | SessionAuth): Presented {
  const key = auth.kind === "key" ? auth.key : null;
  let p = key ? presented.get(key) : undefined;
  if (!p) {
    p = {
      user: presentUser({ id: auth.userId, plan: auth.plan, ...auth.user }),
      apiKey: key && presentApiKey(key),
    };
    if (key) presented.set(key, p);
  }
  return p;
}

/**
 * `GET /api/v1/me`: the key's owner, the key's details (never its secret) and the quota state;
 * `PATCH /api/v1/me/settings`: the owner's settings (the image-model preference).
 */
export function registerMe(app: KeyApp, deps: { db: Db }): void {
  app.get(
    "/api/v1/me",
    {
      schema: {
        operationId: "getMe",
        summary: "The caller's account, key and quota",
        description:
          "The account, the calling API key (null when called from a signed-in console session) and today's quota state.",
        tags: ["Service"],
        response: responses({ 200: Me }),
      },
    },
    async (request) => {
      const auth = request.auth;
      // The auth statement already read the owner: no second round trip.
      const { user, apiKey } = present(auth);
      const { limit, remaining, resetAt } = auth.quota;
      return { user, apiKey, rateLimit: { limit, remaining, resetAt: resetAtIso(resetAt) } };
    },
  );

  app.patch(
    "/api/v1/me/settings",
    {
      config: { scope: "write" },
      schema: {
        operationId: "updateSettings",
        summary: "Change the account's settings (preferred image model)",
        description:
          "`imageModel` must be one of the selectable image models of `GET /api/v1/generate/models` (400 naming the allowed ids otherwise); null returns to the default.",
        tags: ["Service"],
        body: SettingsUpdate,
        response: responses({ 200: Type.Object({ user: User }, { title: "SettingsUpdated" }) }, [
          ...AUTH_ERRORS,
          403,
        ]),
      },
    },
    async (request) => {
      const auth = request.auth;
      const stored = await setImageModelPreference(deps.db, auth.userId, request.body.imageModel);
      const { user } = present(auth);
      return { user: { ...user, settings: { imageModel: effectiveImageModelId(stored) } } };
    },
  );
}
