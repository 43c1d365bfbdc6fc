/**
 * Phone capture tokens: made from the console for one of the user's projects, a bearer secret
 * `crc_…` valid 30 minutes that may only upload files into that project (counted against the
 * user's quota). Only its SHA-256 is stored.
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import {
  type CaptureTokenRow,
  insertCaptureToken,
  listLiveCaptureTokens,
  revokeCaptureToken as revokeCaptureTokenRow,
} from "../../db/repositories/capture-tokens.ts";
import { findProject } from "../../db/repositories/projects.ts";
import { notFound } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { generateSecret, hashKeySecret } from "../auth/api-key-secret.ts";

/** Lifetime of a phone capture token, seconds (30 min). */
export const CAPTURE_TOKEN_TTL_SEC = 30 * 60;

/** What the capture-token use cases need. */
export interface CaptureTokenDeps {
  db: Db;
  clock: Clock;
  /** The server's base URL without trailing slash, for the capture link. */
  publicUrl: string;
}

/** @throws AppError 404 `not_found` when `userId` has no project `projectId`. */
async function requireProject(db: Db, userId: string, projectId: string): Promise<void> {
  if (!(await findProject(db, userId, projectId))) throw notFound(`Project ${projectId}`);
}

/**
 * Issues a capture token for a project (not checked to be the user's: the caller checks).
 * @returns the stored row and the secret `crc_…`, shown once.
 */
async function issueCaptureToken(
  db: Db,
  input: { userId: string; projectId: string; now: Date },
): Promise<{ token: CaptureTokenRow; secret: string }> {
  const secret = generateSecret("crc");
  const token = await insertCaptureToken(db, {
    id: newId("cpt"),
    userId: input.userId,
    projectId: input.projectId,
    hash: hashKeySecret(secret),
    createdAt: input.now,
    expiresAt: new Date(input.now.getTime() + CAPTURE_TOKEN_TTL_SEC * 1000),
  });
  return { token, secret };
}

/**
 * Creates a capture token for one of the user's projects.
 * @returns the stored row, its secret and the capture link `<publicUrl>/capture/<secret>`.
 * @throws AppError 404 `not_found` when `userId` has no project `projectId`.
 */
export async function createCaptureToken(
  deps: CaptureTokenDeps,
  userId: string,
  projectId: string,
): Promise<{ token: CaptureTokenRow; secret: string; url: string }> {
  await requireProject(deps.db, userId, projectId);
  const { token, secret } = await issueCaptureToken(deps.db, { userId, projectId, now: deps.clock.now() });
  return { token, secret, url: `${deps.publicUrl}/capture/${secret}` };
}

/**
 * The live capture tokens of one of the user's projects, newest first.
 * @throws AppError 404 `not_found` when `userId` has no project `projectId`.
 */
export async function listCaptureTokens(
  deps: { db: Db; clock: Clock },
  userId: string,
  projectId: string,
): Promise<CaptureTokenRow[]> {
  await requireProject(deps.db, userId, projectId);
  return listLiveCaptureTokens(deps.db, { userId, projectId, now: deps.clock.now() });
}

/**
 * Revokes one of the user's capture tokens (idempotent).
 * @throws AppError 404 `not_found` when `userId` has no token `tokenId`.
 */
export async function revokeCaptureToken(
  deps: { db: Db; clock: Clock },
  userId: string,
  tokenId: string,
): Promise<void> {
  const found = await revokeCaptureTokenRow(deps.db, { userId, id: tokenId, now: deps.clock.now() });
  if (!found) throw notFound(`Capture token ${tokenId}`);
}
