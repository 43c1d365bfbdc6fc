import { Type } from "typebox";
import { SCOPES } from "../../domain/auth/scopes.ts";
import { PLANS } from "../../domain/quota/daily-quota.ts";
import { Timestamp } from "./common.ts";

/** User resource (docs/conventions.md, Resources). */
export const User = Type.Object(
  {
    id: Type.String({ examples: ["usr_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    email: Type.String(),
    name: Type.String(),
    plan: Type.Union(PLANS.map((p) => Type.Literal(p))),
    createdAt: Timestamp(),
    settings: Type.Object({
      imageModel: Type.String({
        description:
          "The image model generations use: the account's preference, else the default (see GET /api/v1/generate/models)",
        examples: ["fal-ai/flux-pro/v1.1"],
      }),
    }),
  },
  { title: "User" },
);

/** API key details; never the secret. */
export const ApiKey = Type.Object(
  {
    id: Type.String({ examples: ["key_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    name: Type.String(),
    prefix: Type.String({ description: "First characters of the secret", examples: ["crk_a1B2c3"] }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s)))),
    createdAt: Timestamp(),
    lastUsedAt: Type.Union([Timestamp("Updated at most once a minute"), Type.Null()]),
    revokedAt: Type.Union([Timestamp(), Type.Null()]),
  },
  { title: "ApiKey" },
);

/** Quota state of the caller's account. */
export const RateLimit = Type.Object(
  {
    limit: Type.Union([Type.Integer(), Type.Null()], {
      description: "Calls per UTC day; null for an unlimited (admin) account",
    }),
    remaining: Type.Union([Type.Integer(), Type.Null()], {
      description: "Calls left today; null for an unlimited (admin) account",
    }),
    resetAt: Timestamp("Next midnight UTC"),
  },
  { title: "RateLimit" },
);

/** `GET /api/v1/me` response. */
export const Me = Type.Object(
  {
    user: User,
    apiKey: Type.Union([ApiKey, Type.Null()], { description: "The calling key; null for a console session" }),
    rateLimit: RateLimit,
  },
  { title: "Me" },
);

/** `PATCH /api/v1/me/settings` body. */
export const SettingsUpdate = Type.Object(
  {
    imageModel: Type.Union([Type.Null(), Type.String({ maxLength: 200 })], {
      description:
        "`fal-ai/flux-pro/v1.1` (high quality, the default) or `fal-ai/flux/schnell` (fast); null = default",
    }),
  },
  { additionalProperties: false, title: "SettingsUpdate", examples: [{ imageModel: "fal-ai/flux/schnell" }] },
);
