import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { contentDispositionFor, isInlineSafe } from "./content-disposition.ts";
import { parseRange } from "./serve-signed-file.ts";
import { createUrlSigner, loadOrCreateSecret, SECRET_FILE_NAME } from "./signed-url.ts";

const secret = "s".repeat(43);
const signer = createUrlSigner({ secret, publicBaseUrl: "http://api.test/" });
const key = "uploads/upl_1/original";
const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

function queryOf(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams);
}

function expect403(fn: () => unknown, message: RegExp) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(403);
    expect((err as AppError).message).toMatch(message);
    return;
  }
  throw new Error("expected a 403");
}

describe("createUrlSigner", () => {
  it("signs /files/<key>?exp=&sig= and verifies it", () => {
    const { url, expiresAt } = signer.sign(
      key,
      { expiresInSec: 3600, contentType: "video/mp4", filename: "a b.mp4" },
      T0,
    );
    expect(url.startsWith(`http://api.test/files/${key}?exp=`)).toBe(true);
    expect(expiresAt.getTime()).toBe(T0 + 3600_000);
    const v = signer.verify(key, queryOf(url), T0 + 1000);
    expect(v).toEqual({ key, expiresAt, contentType: "video/mp4", filename: "a b.mp4" });
  });

  it("keyOf names the key of its own URLs, signed or not, and null for any other", () => {
    const { url } = signer.sign(key, { expiresInSec: 60 }, T0);
    expect(signer.keyOf(url)).toBe(key);
    expect(signer.keyOf(`http://api.test/files/${key}`)).toBe(key);
    expect(signer.keyOf(`https://api.test/files/${key}`)).toBeNull();
    expect(signer.keyOf(`http://api.test/other/${key}`)).toBeNull();
    expect(signer.keyOf("http://api.test/files/../secret")).toBeNull();
    expect(signer.keyOf("nonsense")).toBeNull();
  });

  it("rejects expired URLs with 403", () => {
    const { url } = signer.sign(key, { expiresInSec: 60 }, T0);
    expect(() => signer.verify(key, queryOf(url), T0 + 59_000)).not.toThrow();
    expect403(() => signer.verify(key, queryOf(url), T0 + 60_000), /expired/);
  });

  it("rejects any tampering with 403", () => {
    const { url } = signer.sign(key, { expiresInSec: 60, contentType: "video/mp4", filename: "x.mp4" }, T0);
    const q = queryOf(url);
    const sig = q.sig as string;
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    expect403(() => signer.verify("uploads/upl_2/original", q, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, exp: String(Number(q.exp) + 3600) }, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, ct: "text/html" }, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, fn: "evil.html" }, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, sig: flipped }, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, sig: undefined }, T0), /signature/);
    expect403(() => signer.verify(key, { ...q, sig: ["a", "b"] }, T0), /signature/);
    expect403(() => signer.verify("../etc/passwd", q, T0), /signature/);
  });

  it("rejects another server's signatures", () => {
    const other = createUrlSigner({ secret: "t".repeat(43), publicBaseUrl: "http://api.test" });
    const { url } = other.sign(key, { expiresInSec: 60 }, T0);
    expect403(() => signer.verify(key, queryOf(url), T0), /signature/);
  });

  it("refuses short secrets and invalid keys", () => {
    expect(() => createUrlSigner({ secret: "short", publicBaseUrl: "http://x" })).toThrow(/at least/);
    expect(() => signer.sign("../x", { expiresInSec: 60 })).toThrow(/Invalid storage key/);
  });
});

describe("loadOrCreateSecret", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("creates a 0600 secret once and returns it afterwards, also under concurrency", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-secret-"));
    dirs.push(dir);
    const results = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateSecret(path.join(dir, "data"))));
    expect(new Set(results).size).toBe(1);
    expect(results[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = path.join(dir, "data", SECRET_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).trim()).toBe(results[0]);
    expect(await loadOrCreateSecret(path.join(dir, "data"))).toBe(results[0]);
  });

  it("refuses a file with a too-short secret", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "cutroom-secret-"));
    dirs.push(dir);
    await writeFile(path.join(dir, SECRET_FILE_NAME), "short\n");
    await expect(loadOrCreateSecret(dir)).rejects.toThrow(/no valid secret/);
  }, 10_000);
});

describe("parseRange", () => {
  it.each([
    [undefined, null],
    ["bytes=0-9", { start: 0, end: 9 }],
    ["bytes=90-", { start: 90, end: 99 }],
    ["bytes=-10", { start: 90, end: 99 }],
    ["bytes=-1000", { start: 0, end: 99 }],
    ["bytes=50-5000", { start: 50, end: 99 }],
    ["bytes=100-", "unsatisfiable"],
    ["bytes=-0", "unsatisfiable"],
    ["bytes=9-3", null],
    ["bytes=0-1,5-6", null],
    ["items=0-1", null],
    ["bytes=-", null],
  ])("%s → %j", (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });
});

describe("contentDispositionFor", () => {
  it("serves media inline and anything executable as attachment", () => {
    for (const t of ["video/mp4", "audio/mpeg", "image/png", "text/vtt", "font/ttf"])
      expect(isInlineSafe(t)).toBe(true);
    for (const t of [
      "text/html",
      "image/svg+xml",
      "application/xml",
      "text/javascript",
      "application/pdf",
      undefined,
    ]) {
      expect(isInlineSafe(t)).toBe(false);
    }
    expect(contentDispositionFor("text/html; charset=utf-8", "x.html")).toBe('attachment; filename="x.html"');
  });

  it("keeps hostile names inside the header", () => {
    const header = contentDispositionFor("video/mp4", 'a"\r\nSet-Cookie: x=1;\\é.mp4');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toBe(
      `inline; filename="a___Set-Cookie: x=1;__.mp4"; filename*=UTF-8''a%22%0D%0ASet-Cookie%3A%20x%3D1%3B%5C%C3%A9.mp4`,
    );
  });
});
