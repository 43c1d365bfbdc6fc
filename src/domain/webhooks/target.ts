/**
 * Where webhooks may be sent: the remote-asset SSRF rules (no loopback, private, link-local,
 * CGNAT, reserved or cloud-metadata address, https only), relaxed as a whole by
 * `WEBHOOK_ALLOW_PRIVATE=true` for self-hosted receivers (then any address, http too).
 */
import { invalidRequest } from "../../errors.ts";
import { checkRemoteUrl, RemoteAssetError, type UrlCheckOptions } from "../../media/fetch-remote-asset.ts";

/** The URL-check options of webhook targets. */
export function webhookUrlPolicy(allowPrivate: boolean): UrlCheckOptions {
  return allowPrivate ? { allowHttp: true, refusal: () => null } : {};
}

/** Whether `WEBHOOK_ALLOW_PRIVATE=true` would let `url` through: an http(s) URL without credentials. */
function relaxable(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, username, password } = new URL(url);
  return (protocol === "http:" || protocol === "https:") && !username && !password;
}

/**
 * Checks a webhook or callback URL when it is given (at delivery time each try checks again).
 * A refusal that `WEBHOOK_ALLOW_PRIVATE=true` would lift (an http URL, a private address)
 * says so, for people running receivers on their own network.
 * @param path - JSON Pointer of the field, e.g. `/url` or `/callbackUrl`.
 * @throws AppError 400 `invalid_request` naming `path` when the URL is refused or its host
 *   does not resolve.
 */
export async function checkWebhookTarget(url: string, allowPrivate: boolean, path: string): Promise<void> {
  const field = path.slice(1);
  try {
    await checkRemoteUrl(url, webhookUrlPolicy(allowPrivate), `The ${field}`);
  } catch (err) {
    if (!(err instanceof RemoteAssetError)) throw err;
    const message =
      !allowPrivate && err.reason === "refused" && relaxable(url)
        ? `${err.message}. A self-hosted server allows http URLs and private addresses with WEBHOOK_ALLOW_PRIVATE=true`
        : err.message;
    throw invalidRequest(`The ${field} is not allowed: ${message}`, [{ path, message }]);
  }
}

/**
 * Checks a job's optional `callbackUrl` (renders, generations, transcriptions) as
 * {@link checkWebhookTarget} does, naming `/callbackUrl`; nothing when none was given.
 * @param allowPrivate - WEBHOOK_ALLOW_PRIVATE (unset: false).
 * @throws AppError 400 `invalid_request` naming `/callbackUrl` when the URL is refused.
 */
export async function checkCallbackUrl(
  url: string | undefined,
  allowPrivate: boolean | undefined,
): Promise<void> {
  if (url) await checkWebhookTarget(url, allowPrivate ?? false, "/callbackUrl");
}
