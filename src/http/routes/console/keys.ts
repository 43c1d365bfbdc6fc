import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import { issueApiKey, listAccountApiKeys, revokeAccountApiKey } from "../../../domain/accounts/api-keys.ts";
import { parseScopes } from "../../../domain/auth/scopes.ts";
import { presentApiKey } from "../../presenters/api-keys.ts";
import { ApiKey } from "../../schemas/account.ts";
import { responses } from "../../schemas/common.ts";
import { CONSOLE_SECURITY, KeyCreate, KeyCreated } from "../../schemas/console.ts";
import type { ConsoleApp } from "../../types.ts";

const ERRORS = [400, 401, 403, 429, 500];
const DESCRIPTION =
  "Console only: needs the session cookie (and `X-CSRF-Token` for writes); an API key gets 403.";

/** Key management for the signed-in console user: list, create (secret shown once), revoke. */
export function registerKeyRoutes(app: ConsoleApp, deps: { db: Db; clock: Clock }): void {
  app.get(
    "/api/v1/keys",
    {
      schema: {
        operationId: "listKeys",
        summary: "List the account's API keys (revoked ones included), oldest first",
        description: DESCRIPTION,
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        response: responses(
          { 200: Type.Object({ data: Type.Array(ApiKey) }, { title: "ApiKeyList" }) },
          ERRORS,
        ),
      },
    },
    async (request) => {
      const auth = request.auth;
      return { data: (await listAccountApiKeys(deps.db, auth.userId)).map(presentApiKey) };
    },
  );

  app.post(
    "/api/v1/keys",
    {
      schema: {
        operationId: "createKey",
        summary: "Create an API key; the secret is in this response only",
        description: DESCRIPTION,
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        body: KeyCreate,
        response: responses({ 201: KeyCreated }, ERRORS),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { key, secret } = await issueApiKey(deps.db, {
        userId: auth.userId,
        name: request.body.name,
        scopes: parseScopes(request.body.scopes.join(",")),
      });
      return reply.code(201).send({ key: presentApiKey(key), secret });
    },
  );

  app.delete(
    "/api/v1/keys/:keyId",
    {
      schema: {
        operationId: "revokeKey",
        summary: "Revoke an API key (idempotent); it stops working on its next request",
        description: DESCRIPTION,
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        params: Type.Object({ keyId: Type.String({ maxLength: 64 }) }),
        response: responses({ 204: null }, [...ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await revokeAccountApiKey(deps, auth.userId, request.params.keyId);
      return reply.code(204).send();
    },
  );
}
