import type { IncomingMessage } from "node:http";
import { type DestinationStream, type Logger, pino } from "pino";

const KEY_PATTERN = /crk_[0-9A-Za-z]{40}/g;
const SIGNATURE_PARAM =
  /([?&](?:sig|signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi;

/** Removes API keys and signed-URL signatures from a string (URLs, messages). */
export function scrubSecrets(text: string): string {
  return text.replace(KEY_PATTERN, "crk_[REDACTED]").replace(SIGNATURE_PARAM, "$1[REDACTED]");
}

/**
 * Creates the structured JSON logger (pino). Redacts `Authorization`, cookies and any
 * header that could carry a key, and scrubs keys and URL signatures from logged URLs.
 *
 * @param level - pino level name.
 * @param destination - where lines go (default stdout); tests pass a capturing stream.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'req.headers["x-api-key"]',
          'res.headers["set-cookie"]',
          "headers.authorization",
          "authorization",
          "secret",
          "key.secret",
        ],
        censor: "[REDACTED]",
      },
      serializers: {
        req: (req: IncomingMessage & { id?: string; ip?: string }) => ({
          id: req.id,
          method: req.method,
          url: scrubSecrets(req.url ?? ""),
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        }),
      },
    },
    destination,
  );
}
