import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressRefusal, fetchRemoteAsset, RemoteAssetError } from "./fetch-remote-asset.ts";

describe("addressRefusal", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["::ffff:192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "linkLocal"],
    ["fe80::1", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.100.100.200", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["fc00::1", "uniqueLocal"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["64:ff9b::a00:1", "rfc6052"],
    ["2002:a00:1::", "6to4"],
    ["::7f00:1", "reserved"],
    ["not an ip", "invalid"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(addressRefusal(address)).toBe(reason);
  });

  it.each(["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

const failure = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RemoteAssetError);
  return err as RemoteAssetError;
};

describe("fetchRemoteAsset: refusals without any connection", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "cutroom-fetch-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const opts = { maxBytes: 1024, timeoutMs: 5_000 };

  it("refuses http:// and other schemes, and credentials", async () => {
    for (const url of ["http://example.com/a.mp4", "ftp://example.com/a.mp4", "file:///etc/passwd"]) {
      const err = await failure(fetchRemoteAsset(url, path.join(dir, "x"), opts));
      expect(err).toMatchObject({ reason: "refused", retryable: false });
    }
    const creds = await failure(fetchRemoteAsset("https://u:p@example.com/a.mp4", path.join(dir, "x"), opts));
    expect(creds.reason).toBe("refused");
  });

  it("refuses loopback, private, link-local, CGNAT and metadata literals (IPv4, IPv6, mapped)", async () => {
    for (const host of [
      "127.0.0.1",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "10.0.0.5",
      "169.254.169.254",
      "100.64.1.1",
      "[fe80::1]",
      "0.0.0.0",
      "2130706433", // 127.0.0.1 as one decimal number: the URL parser normalises it
    ]) {
      const err = await failure(fetchRemoteAsset(`https://${host}/a.mp4`, path.join(dir, "x"), opts));
      expect(err.reason, host).toBe("refused");
    }
  });

  it("refuses a host when any one of its addresses is not public", async () => {
    const resolve = async () => [
      { address: "93.184.215.14", family: 4 as const },
      { address: "10.0.0.1", family: 4 as const },
    ];
    const err = await failure(
      fetchRemoteAsset("https://mixed.example/a.mp4", path.join(dir, "x"), { ...opts, resolve }),
    );
    expect(err.reason).toBe("refused");
    expect(err.message).toMatch(/10\.0\.0\.1 \(private\)/);
  });

  it("refuses localhost through the system resolver", async () => {
    const err = await failure(fetchRemoteAsset("https://localhost/a.mp4", path.join(dir, "x"), opts));
    expect(err.reason).toBe("refused");
  });
});

describe("fetchRemoteAsset against a local https server (loopback allowed for this server only)", () => {
  let dir = "";
  let server: Server;
  let port = 0;
  let ca = "";
  const body = Buffer.alloc(5000, 7);
  // The server is on 127.0.0.1; `media.test` resolves there through the test resolver, and only
  // that address is allowed: every other address keeps the real rules.
  const resolve = async (host: string) => {
    if (host === "media.test") return [{ address: "127.0.0.1", family: 4 as const }];
    if (host === "internal.test") return [{ address: "10.0.0.7", family: 4 as const }];
    throw new Error(`unknown host ${host}`);
  };
  const refusal = (a: string) => (a === "127.0.0.1" ? null : addressRefusal(a));
  const opts = () => ({ maxBytes: 10_000, timeoutMs: 5_000, resolve, refusal, ca });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "cutroom-fetch-tls-"));
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
        ...["-keyout", key, "-out", cert, "-subj", "/CN=media.test"],
        ...["-addext", "subjectAltName=DNS:media.test,DNS:internal.test"],
      ],
      { stdio: "ignore" },
    );
    ca = await readFile(cert, "utf8");
    server = createServer({ key: await readFile(key), cert: ca }, (req, res) => {
      const u = new URL(req.url ?? "/", "https://media.test");
      if (u.pathname === "/file.mp4") {
        res.writeHead(200, { "content-type": "video/mp4", "content-length": body.length });
        res.end(body);
      } else if (u.pathname === "/chunked") {
        res.writeHead(200, { "content-type": "video/mp4" });
        for (let i = 0; i < 5; i += 1) res.write(body);
        res.end();
      } else if (u.pathname === "/redirect") {
        res.writeHead(302, { location: u.searchParams.get("to") ?? "/" });
        res.end();
      } else if (u.pathname === "/hang") {
        // Never answers.
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it("downloads over a connection pinned to the checked address, verifying the certificate", async () => {
    const dest = path.join(dir, "ok.mp4");
    const got = await fetchRemoteAsset(`https://media.test:${port}/file.mp4`, dest, opts());
    expect(got).toMatchObject({ size: body.length, contentType: "video/mp4" });
    expect((await stat(dest)).size).toBe(body.length);
  });

  it("fails on a certificate it does not trust", async () => {
    const err = await failure(
      fetchRemoteAsset(`https://media.test:${port}/file.mp4`, path.join(dir, "x"), {
        ...opts(),
        ca: undefined,
      }),
    );
    expect(err.reason).toBe("network");
  });

  it("follows a redirect on the same rules, and refuses one to http or to a private address", async () => {
    const ok = await fetchRemoteAsset(
      `https://media.test:${port}/redirect?to=/file.mp4`,
      path.join(dir, "r.mp4"),
      opts(),
    );
    expect(ok.finalUrl).toBe(`https://media.test:${port}/file.mp4`);
    for (const to of [
      `http://media.test:${port}/file.mp4`,
      `https://internal.test:${port}/file.mp4`,
      "https://169.254.169.254/",
    ]) {
      const dest = path.join(dir, "refused.mp4");
      const err = await failure(
        fetchRemoteAsset(`https://media.test:${port}/redirect?to=${encodeURIComponent(to)}`, dest, opts()),
      );
      expect(err.reason, to).toBe("refused");
      await expect(stat(dest)).rejects.toThrow();
    }
  });

  it("stops at the redirect limit", async () => {
    const loop = `https://media.test:${port}/redirect?to=${encodeURIComponent(`/redirect?to=/redirect`)}`;
    const err = await failure(fetchRemoteAsset(loop, path.join(dir, "x"), { ...opts(), maxRedirects: 1 }));
    expect(err.reason).toBe("http_status");
  });

  it("enforces the size limit on Content-Length and on a streamed body, leaving no file", async () => {
    const small = { ...opts(), maxBytes: 1000 };
    const declared = await failure(
      fetchRemoteAsset(`https://media.test:${port}/file.mp4`, path.join(dir, "a"), small),
    );
    expect(declared.reason).toBe("too_large");
    const dest = path.join(dir, "b");
    const streamed = await failure(
      fetchRemoteAsset(`https://media.test:${port}/chunked`, dest, { ...opts(), maxBytes: 12_000 }),
    );
    expect(streamed.reason).toBe("too_large");
    await expect(stat(dest)).rejects.toThrow();
  });

  it("enforces the time limit", async () => {
    const started = Date.now();
    const err = await failure(
      fetchRemoteAsset(`https://media.test:${port}/hang`, path.join(dir, "h"), { ...opts(), timeoutMs: 300 }),
    );
    expect(err).toMatchObject({ reason: "timeout", retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("reports a non-2xx status", async () => {
    const err = await failure(
      fetchRemoteAsset(`https://media.test:${port}/missing`, path.join(dir, "m"), opts()),
    );
    expect(err).toMatchObject({ reason: "http_status", retryable: false });
  });
});
