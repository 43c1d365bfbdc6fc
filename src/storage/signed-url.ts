import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors.ts";
import { assertValidKey, isValidKey, keyBelow, type SignedUrl, type SignedUrlOptions } from "./blob-store.ts";

/** Shortest server secret accepted, characters. */
export const MIN_SECRET_LENGTH = 32;

/** Name of the generated secret file inside DATA_DIR. */
export const SECRET_FILE_NAME = "url-signing.secret";

/** Query parameters of a local signed URL (all strings, as parsed from the query string). */
export interface SignedQuery {
  /** Expiry, Unix time in seconds. */
  exp?: unknown;
  /** Signature: base64url HMAC-SHA256 (43 characters). */
  sig?: unknown;
  /** Optional `Content-Type` to serve. */
  ct?: unknown;
  /** Optional file name for `Content-Disposition`. */
  fn?: unknown;
}

/** A verified signed request: what the file route may serve. */
export interface VerifiedFileRequest {
  key: string;
  expiresAt: Date;
  contentType: string | undefined;
  filename: string | undefined;
}

/**
 * Signs and verifies local file URLs of the form
 * `<publicBaseUrl><routePrefix>/<key>?exp=<unix s>[&ct=<type>][&fn=<name>]&sig=<base64url>`.
 * The signature is HMAC-SHA256 over `v1\n<key>\n<exp>\n<ct>\n<fn>` with the server secret, so
 * neither the key, the expiry, the served type nor the offered file name can be changed.
 */
export interface UrlSigner {
  /** Builds a signed URL for `key` valid for `opts.expiresInSec` seconds from `now` (ms, default: now). */
  sign(key: string, opts: SignedUrlOptions, now?: number): SignedUrl;
  /**
   * Checks a request's key and query against its signature and expiry.
   * @throws AppError `forbidden` (403) when the signature is missing, malformed, wrong
   *   (tampered key, expiry, type or name) or expired.
   */
  verify(key: string, query: SignedQuery, now?: number): VerifiedFileRequest;
  /** The key a URL of this signer names (`<publicBaseUrl><routePrefix>/<key>`), or null; the signature is not checked. */
  keyOf(url: string): string | null;
}

/** Options of {@link createUrlSigner}. */
export interface UrlSignerOptions {
  /** Server secret, at least {@link MIN_SECRET_LENGTH} characters (see {@link loadOrCreateSecret}). */
  secret: string;
  /** Origin (and optional base path) clients reach the API at, e.g. `https://cutroom.example.com`. */
  publicBaseUrl: string;
  /** Path the file route is registered under, default `/files` (route: `GET /files/*`). */
  routePrefix?: string;
}

/**
 * Creates the HMAC signer for local file URLs.
 * @throws Error when the secret is shorter than {@link MIN_SECRET_LENGTH}.
 */
export function createUrlSigner(opts: UrlSignerOptions): UrlSigner {
  if (opts.secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`URL signing secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const secret = Buffer.from(opts.secret, "utf8");
  const base = opts.publicBaseUrl.replace(/\/+$/, "") + (opts.routePrefix ?? "/files").replace(/\/+$/, "");
  const mac = (key: string, exp: number, ct: string, fn: string): Buffer =>
    createHmac("sha256", secret).update(`v1\n${key}\n${exp}\n${ct}\n${fn}`).digest();

  return {
    sign(key, { expiresInSec, contentType, filename }, now = Date.now()) {
      assertValidKey(key);
      if (!Number.isFinite(expiresInSec) || expiresInSec <= 0) throw new Error("expiresInSec must be > 0");
      const exp = Math.floor(now / 1000) + Math.ceil(expiresInSec);
      const params = new URLSearchParams({ exp: String(exp) });
      if (contentType) params.set("ct", contentType);
      if (filename) params.set("fn", filename);
      params.set("sig", mac(key, exp, contentType ?? "", filename ?? "").toString("base64url"));
      return { url: `${base}/${key}?${params.toString()}`, expiresAt: new Date(exp * 1000) };
    },

    keyOf(url) {
      return keyBelow(`${base}/`, url);
    },

    verify(key, query, now = Date.now()) {
      const exp =
        typeof query.exp === "string" && /^\d{1,12}$/.test(query.exp) ? Number(query.exp) : Number.NaN;
      const sig =
        typeof query.sig === "string" && /^[A-Za-z0-9_-]{43}$/.test(query.sig) ? query.sig : undefined;
      const ct = typeof query.ct === "string" ? query.ct : undefined;
      const fn = typeof query.fn === "string" ? query.fn : undefined;
      if (Number.isNaN(exp) || sig === undefined || !isValidKey(key))
        throw forbidden("Invalid file signature");
      const expected = mac(key, exp, ct ?? "", fn ?? "");
      const given = Buffer.from(sig, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw forbidden("Invalid file signature");
      }
      if (exp * 1000 <= now) throw forbidden("This file link has expired");
      return { key, expiresAt: new Date(exp * 1000), contentType: ct, filename: fn };
    },
  };
}

const forbidden = (message: string) => new AppError("forbidden", message);

/**
 * Returns the server's URL-signing secret stored in `<dataDir>/url-signing.secret`, creating it
 * on first start: 32 random bytes, base64url (43 characters), file mode 0600. Safe when several
 * processes start at once on the same DATA_DIR: the file is created exclusively and the loser
 * reads the winner's secret.
 * @throws Error when the file exists but holds fewer than {@link MIN_SECRET_LENGTH} characters.
 */
export async function loadOrCreateSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SECRET_FILE_NAME);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const fresh = randomBytes(32).toString("base64url");
  try {
    await writeFile(file, `${fresh}\n`, { mode: 0o600, flag: "wx" });
    return fresh;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  // Another process may have created the file an instant ago and not written it yet.
  for (let attempt = 0; ; attempt++) {
    const existing = (await readFile(file, "utf8")).trim();
    if (existing.length >= MIN_SECRET_LENGTH) return existing;
    if (attempt >= 20)
      throw new Error(`${file} holds no valid secret (need ≥ ${MIN_SECRET_LENGTH} characters)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
