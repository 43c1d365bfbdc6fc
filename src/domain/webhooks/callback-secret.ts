/** The account's callback secret: it signs the messages sent to per-request `callbackUrl`s. */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import { ensureCallbackSecret, replaceCallbackSecret } from "../../db/repositories/webhooks.ts";
import { newWebhookSecret } from "./secret.ts";

/** A callback secret and when it was made. */
export interface CallbackSecret {
  secret: string;
  createdAt: Date;
}

/** The callback secret of `userId`, created on first use and the same until rotated. */
export function getCallbackSecret(db: Db, userId: string): Promise<CallbackSecret> {
  return ensureCallbackSecret(db, userId, newWebhookSecret());
}

/** Replaces the callback secret of `userId`; every callback sent from now on is signed with the new one. */
export function rotateCallbackSecret(
  deps: { db: Db; clock: Clock },
  userId: string,
): Promise<CallbackSecret> {
  return replaceCallbackSecret(deps.db, userId, newWebhookSecret(), deps.clock.now());
}
