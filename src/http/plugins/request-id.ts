import type { IncomingMessage } from "node:http";
import { newId } from "../../ids.ts";

const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Fastify `genReqId`: echoes a well-formed incoming `X-Request-Id` (1–128 of
 * `[A-Za-z0-9._:-]`), else mints `req_<ulid>`.
 */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers["x-request-id"];
  if (typeof incoming === "string" && WELL_FORMED.test(incoming)) return incoming;
  return newId("req");
}
