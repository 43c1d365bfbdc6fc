import { randomBytes } from "node:crypto";

/**
 * A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 24 random bytes
 * (192 bits, within the specification's 24–64 byte range). The library's `Webhook` accepts it as is.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}
