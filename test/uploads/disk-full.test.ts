import { type Readable, Transform } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDiskFull } from "../../src/http/plugins/error-handler.ts";
import type { PutOptions } from "../../src/storage/blob-store.ts";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { storedFiles, uploadRowCount } from "./helpers.ts";

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.listen();
});
afterAll(() => t.close());

/** `body` with its first chunk passed on, then the file system's ENOSPC, as a full disk fails a write. */
function fillsTheDisk(body: Readable): Readable {
  let passed = false;
  return body.pipe(
    new Transform({
      transform(chunk, _encoding, done) {
        if (passed)
          done(
            Object.assign(new Error("ENOSPC: no space left on device, write"), {
              code: "ENOSPC",
              errno: -28,
            }),
          );
        else {
          passed = true;
          done(null, chunk);
        }
      },
    }),
  );
}

describe("a full disk", () => {
  it("answers an upload 507 with a sentence, and keeps no temp file and no row", async () => {
    const store = t.runtime.store;
    const put = store.put.bind(store);
    store.put = (key: string, body: Readable, opts: PutOptions) => put(key, fillsTheDisk(body), opts);
    try {
      const a = await t.createAccount();
      const rowsBefore = await uploadRowCount(t);
      const subtitles = "1\n00:00:00,000 --> 00:00:01,000\nhello\n\n".repeat(20_000);
      const form = new FormData();
      form.append("file", new Blob([subtitles]), "subs.srt");
      const res = await fetch(`${base}/api/v1/uploads`, {
        method: "POST",
        headers: bearer(a.key),
        body: form,
      });
      expect(res.status).toBe(507);
      const body = (await res.json()) as { error: { code: string; message: string; requestId: string } };
      expect(body.error.code).toBe("insufficient_storage");
      expect(body.error.message).toMatch(/out of disk space.*nothing.*saved/);
      expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
      expect(await storedFiles(t)).toEqual([]);
      expect(await uploadRowCount(t)).toBe(rowsBefore);
    } finally {
      store.put = put;
    }
  });

  it("is recognised from the store's errno codes and the database's disk_full SQLSTATE, through causes", () => {
    expect(isDiskFull(Object.assign(new Error("no space"), { code: "ENOSPC" }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error("quota"), { code: "EDQUOT" }))).toBe(true);
    const dbError = Object.assign(new Error("Failed query: insert into uploads …"), {
      query: "insert into uploads …",
      params: [],
      cause: Object.assign(new Error('could not extend file "base/5/16384"'), { code: "53100" }),
    });
    expect(isDiskFull(dbError)).toBe(true);
    expect(isDiskFull(Object.assign(new Error("denied"), { code: "EACCES" }))).toBe(false);
    expect(isDiskFull("ENOSPC")).toBe(false);
  });
});
