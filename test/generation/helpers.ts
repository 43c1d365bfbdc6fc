// Shared helpers of the generation tests: calls, polling, multipart image uploads, signed-URL reads.
import { expect } from "vitest";
import { bearer, type TestApp } from "../helpers/app.ts";

/** The Generation resource as the tests read it. */
export interface GenerationJson {
  id: string;
  kind: "image" | "video";
  status: string;
  prompt: string;
  params: Record<string, unknown>;
  model: { id: string; provider: string; offline: boolean };
  outputs: {
    id: string;
    url: string;
    type: string;
    mimeType: string;
    origin: string;
    generationId: string | null;
    sha256: string;
    media: { width: number | null; height: number | null; duration: number | null } | null;
  }[];
  error: { code: string; message: string } | null;
  warnings: { code: string; message: string }[];
  progress: number | null;
  finishedAt: string | null;
}

/** POST a JSON body as `key`'s owner. */
export const post = (t: TestApp, key: string, url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: "POST", url, headers: bearer(key), payload });

/** Polls `GET /api/v1/generations/:id` until the generation is terminal. */
export async function waitTerminal(t: TestApp, key: string, id: string): Promise<GenerationJson> {
  for (;;) {
    const res = await t.app.inject({ url: `/api/v1/generations/${id}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const g = res.json() as GenerationJson;
    if (["succeeded", "failed", "cancelled"].includes(g.status)) return g;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Uploads one file through `POST /api/v1/uploads`; returns the upload's id and url. */
export async function uploadFile(
  t: TestApp,
  key: string,
  file: Buffer,
  filename: string,
): Promise<{ id: string; url: string }> {
  const boundary = "----cutroom-test-boundary";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/uploads",
    headers: { ...bearer(key), "content-type": `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data[0];
}

/** The bytes behind a signed URL of the local store (served by the app itself). */
export async function readSigned(t: TestApp, url: string): Promise<Buffer> {
  const u = new URL(url);
  const res = await t.app.inject({ url: u.pathname + u.search });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}
