/**
 * One HTTP try of a webhook message: the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature` = `v1,<base64 HMAC-SHA256 of id.timestamp.body>`,
 * signed by the `standardwebhooks` library), sent through the SSRF guard with the connection
 * pinned to the checked address, within one time limit. Redirects are not followed.
 */
import { Webhook } from "standardwebhooks";
import {
  checkUrl,
  pinnedAgent,
  RemoteAssetError,
  type UrlCheckOptions,
} from "../../media/fetch-remote-asset.ts";
import { HttpClientError, type HttpDispatcher, httpRequest, readLimited } from "../../net/http-client.ts";

/** What one try of a message gives. */
export interface WebhookTryResult {
  ok: boolean;
  /** The receiver's HTTP status, or null when no response came. */
  status: number | null;
  /** From the start of the try to the end of the response, milliseconds. */
  latencyMs: number;
  /** Why the try failed (null when it succeeded). */
  error: string | null;
}

/** The signed headers of a message (Standard Webhooks). */
export function signWebhook(input: {
  secret: string;
  messageId: string;
  timestamp: Date;
  body: string;
}): Record<string, string> {
  return {
    "webhook-id": input.messageId,
    "webhook-timestamp": String(Math.floor(input.timestamp.getTime() / 1000)),
    "webhook-signature": new Webhook(input.secret).sign(input.messageId, input.timestamp, input.body),
  };
}

/** Largest part of a response body read (then the connection is dropped), bytes. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one signed message. Any 2xx is success; anything else, a refused URL, a network error
 * or the time limit is a failure with its reason (never throws for those).
 *
 * @param input.timeoutMs - limit of the whole try (connect, request, response), milliseconds.
 * @param input.policy - URL rules (see `webhookUrlPolicy`).
 */
export async function sendWebhook(input: {
  url: string;
  secret: string;
  messageId: string;
  body: string;
  now: Date;
  timeoutMs: number;
  policy: UrlCheckOptions;
}): Promise<WebhookTryResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): WebhookTryResult => ({
    ok: error === null,
    status,
    latencyMs: Math.round(performance.now() - started),
    error,
  });
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return done(null, "The URL is not valid");
  }
  const signal = AbortSignal.timeout(input.timeoutMs);
  let agent: HttpDispatcher | undefined;
  try {
    const pinned = await checkUrl(url, input.policy);
    agent = await pinnedAgent(pinned, { connectTimeoutMs: input.timeoutMs });
    const res = await httpRequest(url, {
      method: "POST",
      dispatcher: agent,
      signal,
      headers: {
        "content-type": "application/json",
        "user-agent": "cutroom-webhooks/1",
        ...signWebhook({
          secret: input.secret,
          messageId: input.messageId,
          timestamp: input.now,
          body: input.body,
        }),
      },
      body: input.body,
    });
    await readLimited(res, MAX_RESPONSE_BYTES, url, "truncate");
    if (res.statusCode >= 200 && res.statusCode < 300) return done(res.statusCode, null);
    return done(res.statusCode, `The receiver answered ${res.statusCode}`);
  } catch (err) {
    if (signal.aborted) return done(null, `No answer within ${input.timeoutMs} ms`);
    if (err instanceof RemoteAssetError || err instanceof HttpClientError) return done(null, err.message);
    return done(null, `The request failed: ${(err as Error).message}`);
  } finally {
    await agent?.destroy().catch(() => {});
  }
}
