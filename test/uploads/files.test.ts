// Signed file URLs of the local-disk driver (GET /files/*): no key needed, expiry, tampering,
// Range requests and the headers that keep browsers from sniffing or running uploads.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixtures, makeFixtures } from "../../src/domain/uploads/test-fixtures.ts";
import type { LocalDiskStore } from "../../src/storage/local-disk.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { postMultipart, type UploadJson } from "./helpers.ts";

const TTL_SEC = 120;
let t: TestApp;
let base: string;
let dir: string;
let fx: Fixtures;
let store: LocalDiskStore;
let video: UploadJson;
let srt: UploadJson;
let videoBytes: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-files-"));
  fx = await makeFixtures(dir);
  t = await startTestApp({ env: { SIGNED_URL_TTL_SEC: String(TTL_SEC) } });
  base = await t.listen();
  store = t.runtime.store as LocalDiskStore;
  const a = await t.createAccount();
  videoBytes = await readFile(fx.video);
  const res = await postMultipart(
    base,
    [
      { filename: "clip.mp4", data: videoBytes },
      { filename: "subs.srt", data: await readFile(fx.srt) },
    ],
    { key: a.key },
  );
  expect(res.status, res.text).toBe(201);
  [video, srt] = res.body.data as [UploadJson, UploadJson];
});
afterAll(async () => {
  // A failed assertion can leave a response unread, keeping its connection busy: don't wait for it.
  t?.app.server.closeAllConnections();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The signed URL's path and query on the test server (PUBLIC_URL names port 3000). */
const reach = (url: string): string => {
  expect(url.startsWith(`${t.config.publicUrl}/files/`), url).toBe(true);
  return `${base}${url.slice(t.config.publicUrl.length)}`;
};

/** `url` with query parameter `name` set to `value` (or removed when `null`). */
function withParam(url: string, name: string, value: string | null): string {
  const u = new URL(reach(url));
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
}

describe("GET /files/* (signed URLs)", () => {
  it("serves the original without a key, with its type, length, nosniff and an expiry of SIGNED_URL_TTL_SEC", async () => {
    const res = await fetch(reach(video.url));
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-length")).toBe(String(videoBytes.length));
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-disposition")).toContain("clip.mp4");
    expect(body).toEqual(videoBytes);

    const exp = Number(new URL(video.url).searchParams.get("exp"));
    expect(new Date(exp * 1000).toISOString()).toBe(video.urlExpiresAt);
    expect(exp * 1000 - Date.now()).toBeGreaterThan((TTL_SEC - 30) * 1000);
    expect(exp * 1000 - Date.now()).toBeLessThanOrEqual(TTL_SEC * 1000 + 1000);

    const sub = await fetch(reach(srt.url));
    const text = await sub.text();
    expect(sub.status).toBe(200);
    expect(sub.headers.get("content-type")).toBe("application/x-subrip");
    expect(sub.headers.get("x-content-type-options")).toBe("nosniff");
    expect(sub.headers.get("content-disposition")).toBe('inline; filename="subs.srt"');
    expect(text).toBe(await readFile(fx.srt, "utf8"));
  });

  it("answers Range requests with 206 and the right Content-Range, and 416 past the end", async () => {
    const size = videoBytes.length;
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=100-", 100, size - 1],
      ["bytes=-500", size - 500, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await fetch(reach(video.url), { headers: { range } });
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.status, range).toBe(206);
      expect(res.headers.get("content-range"), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers.get("content-length"), range).toBe(String(end - start + 1));
      expect(res.headers.get("content-type")).toBe("video/mp4");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(body, range).toEqual(videoBytes.subarray(start, end + 1));
    }
    const past = await fetch(reach(video.url), { headers: { range: `bytes=${size}-` } });
    await past.arrayBuffer();
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${size}`);
  });

  it("refuses a tampered URL with 403", async () => {
    const sig = new URL(video.url).searchParams.get("sig") as string;
    const flipped = `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
    const otherKey = reach(video.url).replace(`uploads/${video.id}/original`, `uploads/${srt.id}/original`);
    const tampered: [string, string][] = [
      ["signature changed", withParam(video.url, "sig", flipped)],
      ["signature removed", withParam(video.url, "sig", null)],
      ["expiry extended", withParam(video.url, "exp", String(Math.floor(Date.now() / 1000) + 86_400))],
      ["type changed to HTML", withParam(video.url, "ct", "text/html")],
      ["type removed", withParam(video.url, "ct", null)],
      ["file name changed", withParam(video.url, "fn", "x.html")],
      ["other object", otherKey],
      ["poster key", reach(video.url).replace("/original?", "/poster.jpg?")],
    ];
    for (const [name, url] of tampered) {
      const res = await fetch(url);
      expect(res.status, name).toBe(403);
      const body = (await res.json()) as { error: { code: string; message: string; requestId: string } };
      expect(body.error.message, name).toBe("Invalid file signature");
      expect(body.error.requestId).toMatch(/^req_/);
    }
    // Unsigned paths outside uploads, and path tricks, are refused too.
    for (const p of ["/files/url-signing.secret", "/files/uploads/../url-signing.secret", "/files/"]) {
      const res = await fetch(`${base}${p}`);
      await res.arrayBuffer();
      expect(res.status, p).toBe(403);
    }
  });

  it("refuses an expired URL with 403", async () => {
    const key = `uploads/${video.id}/original`;
    // Signed by the server's own signer an hour ago, valid for one minute.
    const expired = store.signer.sign(
      key,
      { expiresInSec: 60, contentType: "video/mp4", filename: "clip.mp4" },
      Date.now() - 3600_000,
    );
    expect(expired.expiresAt.getTime()).toBeLessThan(Date.now());
    const res = await fetch(reach(expired.url));
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBe(403);
    expect(body.error.message).toBe("This file link has expired");
    // The same signer, now: accepted (the signature scheme is the one the server checks).
    const fresh = store.signer.sign(key, {
      expiresInSec: 60,
      contentType: "video/mp4",
      filename: "clip.mp4",
    });
    const ok = await fetch(reach(fresh.url));
    await ok.arrayBuffer();
    expect(ok.status).toBe(200);
  });
});
