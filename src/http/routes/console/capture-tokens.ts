import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import {
  createCaptureToken,
  listCaptureTokens,
  revokeCaptureToken,
} from "../../../domain/console/capture-tokens.ts";
import { presentCaptureToken } from "../../presenters/capture-tokens.ts";
import { responses } from "../../schemas/common.ts";
import { CaptureToken, CaptureTokenCreated, CONSOLE_SECURITY } from "../../schemas/console.ts";
import type { ConsoleApp } from "../../types.ts";

const ERRORS = [400, 401, 403, 429, 500];
const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });

/**
 * Phone capture links, made from the console: a token valid 30 minutes that may only upload
 * into one project (`POST /api/v1/uploads` with it as bearer), listed and revocable.
 */
export function registerCaptureTokenRoutes(
  app: ConsoleApp,
  deps: { db: Db; clock: Clock; publicUrl: string },
): void {
  app.post(
    "/api/v1/projects/:projectId/capture-tokens",
    {
      schema: {
        operationId: "createCaptureToken",
        summary: "Create a phone capture link for a project (valid 30 minutes)",
        description:
          "Console only. The token may only call `POST /api/v1/uploads` with `projectId` set to this project (403 elsewhere); its uploads count against the account's quota.",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        params: ProjectParams,
        response: responses({ 201: CaptureTokenCreated }, [...ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { token, secret, url } = await createCaptureToken(deps, auth.userId, request.params.projectId);
      return reply.code(201).send({ captureToken: presentCaptureToken(token), token: secret, url });
    },
  );

  app.get(
    "/api/v1/projects/:projectId/capture-tokens",
    {
      schema: {
        operationId: "listCaptureTokens",
        summary: "The project's live phone capture links, newest first",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        params: ProjectParams,
        response: responses(
          { 200: Type.Object({ data: Type.Array(CaptureToken) }, { title: "CaptureTokenList" }) },
          [...ERRORS, 404],
        ),
      },
    },
    async (request) => {
      const auth = request.auth;
      const rows = await listCaptureTokens(deps, auth.userId, request.params.projectId);
      return { data: rows.map(presentCaptureToken) };
    },
  );

  app.delete(
    "/api/v1/capture-tokens/:tokenId",
    {
      schema: {
        operationId: "revokeCaptureToken",
        summary: "Revoke a phone capture link (idempotent)",
        tags: ["Console"],
        security: CONSOLE_SECURITY,
        params: Type.Object({ tokenId: Type.String({ maxLength: 64 }) }),
        response: responses({ 204: null }, [...ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await revokeCaptureToken(deps, auth.userId, request.params.tokenId);
      return reply.code(204).send();
    },
  );
}
