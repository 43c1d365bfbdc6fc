import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Static } from "typebox";
import { expect } from "vitest";
import type { Timeline } from "../../src/domain/composition/schema.ts";
import type { Render } from "../../src/http/schemas/render.ts";

/** The Render resource as the API returns it (its documented response schema). */
export type RenderBody = Static<typeof Render>;

/** `doc` as a request body named `name`: without the ids the API gives its tracks and clips. */
export function compositionBody(doc: Timeline, name: string): unknown {
  return {
    name,
    canvas: doc.canvas,
    tracks: doc.tracks.map(({ id: _t, clips, ...track }) => ({
      ...track,
      clips: clips.map(({ id: _c, ...clip }) => clip),
    })),
  };
}

/** A small HTTP client for one base URL and key (real sockets, as a client would). */
export function client(base: string, key: string) {
  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
  const json = async (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: headers(body === undefined ? extra : { "content-type": "application/json", ...extra }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return {
    json,
    /** Uploads local files in one multipart request; returns the Upload resources. */
    async upload(files: string[]): Promise<{ id: string; type: string; media: unknown }[]> {
      const form = new FormData();
      for (const f of files) form.append("file", new Blob([await readFile(f)]), path.basename(f));
      const res = await fetch(`${base}/api/v1/uploads`, { method: "POST", headers: headers(), body: form });
      const body = (await res.json()) as { data: { id: string; type: string; media: unknown }[] };
      expect(res.status, JSON.stringify(body)).toBe(201);
      return body.data;
    },
    async createComposition(doc: unknown): Promise<{ id: string; version: number; tracks: unknown[] }> {
      const res = await json("POST", "/api/compositions", doc);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    },
    async startRender(body: unknown, extra: Record<string, string> = {}): Promise<RenderBody> {
      const res = await json("POST", "/api/render", body, extra);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body;
    },
    async getRender(id: string) {
      return json("GET", `/api/render/${id}`);
    },
    /**
     * Polls `GET /api/render/:id` until terminal, waiting the `Retry-After` the server asks for
     * (checked present on every non-terminal response). Returns every body seen, in order.
     */
    async pollUntilTerminal(
      id: string,
      opts: { timeoutMs?: number; onPoll?: (r: RenderBody) => void | Promise<void> } = {},
    ): Promise<RenderBody[]> {
      const seen: RenderBody[] = [];
      const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
      for (;;) {
        const res = await json("GET", `/api/render/${id}`);
        expect(res.status).toBe(200);
        const r = res.body as RenderBody;
        seen.push(r);
        await opts.onPoll?.(r);
        if (["succeeded", "failed", "cancelled"].includes(r.status)) {
          expect(res.headers.get("retry-after")).toBeNull();
          return seen;
        }
        const retryAfter = Number(res.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThan(0);
        if (Date.now() > deadline) {
          throw new Error(`render ${id} still ${r.status} after ${opts.timeoutMs ?? 60_000} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      }
    },
  };
}

/** A signed URL re-rooted on the test server (the app signs with its configured PUBLIC_URL). */
export function onServer(base: string, signedUrl: string): string {
  const u = new URL(signedUrl);
  return `${base}${u.pathname}${u.search}`;
}

/** Downloads a URL to `file`; returns its size, sha256 and Content-Type. */
export async function download(
  url: string,
  file: string,
): Promise<{ size: number; sha256: string; contentType: string | null }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const buf = Buffer.from(await res.arrayBuffer());
  await writeFile(file, buf);
  return {
    size: buf.length,
    sha256: createHash("sha256").update(buf).digest("hex"),
    contentType: res.headers.get("content-type"),
  };
}

const ORDER = ["queued", "preparing", "rendering", "finalizing", "succeeded"];

/** Asserts polled statuses only move forward along queued → … → succeeded and ratios never drop. */
export function expectSaneHistory(history: RenderBody[]): void {
  let rank = 0;
  let ratio = 0;
  for (const r of history) {
    const i = ORDER.indexOf(r.status);
    expect(i, `unexpected status ${r.status}`).toBeGreaterThanOrEqual(0);
    expect(i, `status went back to ${r.status}`).toBeGreaterThanOrEqual(rank);
    rank = i;
    expect(r.progress.ratio).toBeGreaterThanOrEqual(ratio);
    expect(r.progress.ratio).toBeLessThanOrEqual(1);
    ratio = r.progress.ratio;
  }
}

/** Canvas of tiny test renders. */
export const tinyCanvas = (fps = 25) => ({ width: 160, height: 90, fps, background: "#000000" });

/** Waits until `check` returns a truthy value (polling every `everyMs`). */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
