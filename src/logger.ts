import type { IncomingMessage } from "node:http";
import { type DestinationStream, type Logger, pino } from "pino";
import { SECRET_PREFIXES } from "./secret-formats.ts";

/**
 * Every secret format the server issues, wherever it appears (path, query, body, message):
 * bearer secrets `crk_`/`crc_`/`crs_`/`crp_` + 40 base62 (their prefix kept, so a log still
 * says which kind was used), and webhook signing secrets `whsec_` + base64.
 */
const SECRET_PATTERN = new RegExp(
  `\\b(${SECRET_PREFIXES.join("|")})_[0-9A-Za-z]{40}|\\bwhsec_[A-Za-z0-9+/=]{16,}`,
  "g",
);
const SIGNATURE_PARAM =
  /([?&](?:sig|signature|token|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi;

/**
 * The path segment after `/capture/` (the phone capture page's token), whatever its length or
 * form: a mistyped or truncated token is still most of a secret.
 */
const CAPTURE_SEGMENT = /(\/capture\/)[^/?#\s"'<>]+/g;

/**
 * Removes the secrets the server issues and signed-URL signatures from a string (URLs, messages,
 * bodies): by format anywhere, and by position whatever their form (every `token`, `sig`… query
 * parameter, the path segment after `/capture/`).
 */
export function scrubSecrets(text: string): string {
  return text
    .replace(SECRET_PATTERN, (_m, prefix: string | undefined) => `${prefix ?? "whsec"}_[REDACTED]`)
    .replace(SIGNATURE_PARAM, "$1[REDACTED]")
    .replace(CAPTURE_SEGMENT, "$1[REDACTED]");
}

/** A plain object or array (not a request, error or other instance, which serializers render). */
function isPlain(v: unknown): v is object {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return Array.isArray(v) || proto === Object.prototype || proto === null;
}

/**
 * `value` with {@link scrubSecrets} applied to every string in its plain objects and arrays
 * (iteratively; a copy). Instances are kept for their serializers (`req`, `err`), which scrub.
 */
function scrubDeep(value: unknown): unknown {
  if (typeof value === "string") return scrubSecrets(value);
  if (!isPlain(value)) return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [value as Record<string, unknown>, root as Record<string, unknown>],
  ];
  const seen = new WeakSet<object>([value]);
  while (stack.length > 0) {
    const [from, to] = stack.pop() as [Record<string, unknown>, Record<string, unknown>];
    for (const [k, v] of Object.entries(from)) {
      if (typeof v === "string") to[k] = scrubSecrets(v);
      else if (isPlain(v) && !seen.has(v)) {
        seen.add(v);
        const copy = (Array.isArray(v) ? [] : {}) as Record<string, unknown>;
        to[k] = copy;
        stack.push([v as Record<string, unknown>, copy]);
      } else to[k] = v;
    }
  }
  return root;
}

/**
 * Creates the structured JSON logger (pino). Redacts `Authorization`, cookies, the CSRF header
 * and any header that could carry a key, and scrubs every secret format the server issues and
 * URL signatures from everything logged ({@link scrubSecrets}).
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
          'req.headers["x-csrf-token"]',
          'req.headers["x-api-key"]',
          'res.headers["set-cookie"]',
          "headers.authorization",
          "authorization",
          "secret",
          "key.secret",
        ],
        censor: "[REDACTED]",
      },
      // Whatever a log line carries (messages, errors, request data) is scrubbed of secrets.
      formatters: { log: (object) => scrubDeep(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === "string" ? scrubSecrets(a) : a)) as Parameters<typeof method>,
          );
        },
      },
      serializers: {
        err: (err: Error) => scrubDeep(pino.stdSerializers.err(err)),
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
