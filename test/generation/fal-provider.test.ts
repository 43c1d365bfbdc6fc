import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GenerationError } from "../../src/domain/generation/errors.ts";
import { createFalProvider } from "../../src/domain/generation/providers/fal.ts";
import type { GenerationProvider, VendorRef } from "../../src/domain/generation/providers/types.ts";
import { ffmpeg } from "../fixtures/render/media.ts";
import { type FalStandIn, startFalStandIn } from "../helpers/fal-stand-in.ts";

const run = promisify(execFile);
const KEY = "fal-test-secret-0123456789";
let standIn: FalStandIn;
let fal: GenerationProvider;
let dir: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  standIn = await startFalStandIn();
  fal = createFalProvider({ apiKey: KEY, queueUrl: standIn.url, retries: 2, retryBaseMs: 10 });
  dir = await mkdtemp(path.join(tmpdir(), "fal-contract-"));
});
afterAll(async () => {
  await standIn.close();
  await rm(dir, { recursive: true, force: true });
});

/** Polls until the stand-in reports COMPLETED; returns the states seen. */
async function waitDone(ref: VendorRef): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const st = await fal.status(ref, { signal });
    seen.push(st.state);
    if (st.state === "completed") return seen;
  }
}

const image = (prompt: string) =>
  ({
    kind: "image",
    model: "fal-ai/flux/schnell",
    prompt,
    imageSize: "square_hd",
    numImages: 2,
    seed: 7,
  }) as const;

describe("fal provider against the queue stand-in", () => {
  it("submits fal's input names with the key header, walks the queue states and downloads the exact bytes", async () => {
    const requestId = await fal.submit(image("a lighthouse at night"), { signal });
    const submitted = standIn.requests.at(-1);
    expect(submitted?.model).toBe("fal-ai/flux/schnell");
    expect(submitted?.input).toEqual({
      prompt: "a lighthouse at night",
      image_size: "square_hd",
      num_images: 2,
      seed: 7,
    });
    expect(submitted?.authorization).toBe(`Key ${KEY}`);
    const ref = { model: "fal-ai/flux/schnell", requestId };
    expect(await waitDone(ref)).toEqual(["queued", "running", "completed"]);
    const out = await mkdtemp(path.join(dir, "out-"));
    const files = await fal.result(ref, { signal, dir: out });
    expect(files).toHaveLength(2);
    for (const f of files) expect((await readFile(f.path)).equals(standIn.png)).toBe(true);
  });

  it("sends the still of a video as a JPEG data URI no larger than the model's limit", async () => {
    const still = path.join(dir, "wide.png");
    await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=2400x1200", "-frames:v", "1", still]);
    const requestId = await fal.submit(
      {
        kind: "video",
        model: "fal-ai/veo3/fast/image-to-video",
        prompt: "slow push-in",
        imagePath: still,
        duration: "6s",
        resolution: "720p",
        aspectRatio: "16:9",
        generateAudio: false,
      },
      { signal },
    );
    const input = standIn.requests.at(-1)?.input as Record<string, unknown>;
    expect(input).toMatchObject({
      prompt: "slow push-in",
      duration: "6s",
      resolution: "720p",
      aspect_ratio: "16:9",
      generate_audio: false,
    });
    const uri = String(input.image_url);
    expect(uri.startsWith("data:image/jpeg;base64,")).toBe(true);
    const jpeg = path.join(dir, "sent.jpg");
    await writeFile(jpeg, Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64"));
    const { stdout } = await run("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "stream=width,height",
      "-of",
      "csv=p=0",
      jpeg,
    ]);
    expect(stdout.trim()).toBe("1920,960");
    const ref = { model: "fal-ai/veo3/fast/image-to-video", requestId };
    await waitDone(ref);
    const [file] = await fal.result(ref, { signal, dir: await mkdtemp(path.join(dir, "v-")) });
    expect((await readFile(file?.path as string)).equals(standIn.mp4)).toBe(true);
  });

  it("maps a 422 on content to content_rejected and other 422s to a final vendor_error", async () => {
    const rejected = await fal
      .submit(image("[content_rejected] something"), { signal })
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(GenerationError);
    expect(rejected).toMatchObject({ code: "content_rejected", retryable: false });
    const invalid = await fal.submit(image("[invalid_input] x"), { signal }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: "vendor_error", retryable: false });
    expect((invalid as Error).message).toContain("Input should be a valid size");
  });

  it("retries a 500 with backoff, then fails with a retryable vendor_error that does not carry the key", async () => {
    const before = standIn.refusedSubmits;
    const err = await fal.submit(image("[server_error] x"), { signal }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "vendor_error", retryable: true });
    expect(standIn.refusedSubmits - before).toBe(3);
    expect(JSON.stringify({ m: (err as Error).message, s: (err as Error).stack })).not.toContain(KEY);
  });

  it("cancel reaches the vendor", async () => {
    const requestId = await fal.submit(image("[never_finishes] x"), { signal });
    await fal.cancel({ model: "fal-ai/flux/schnell", requestId });
    expect(standIn.requests.find((r) => r.id === requestId)?.cancelled).toBe(true);
  });

  it("refuses a result URL on another, private host (SSRF guard) without fetching it", async () => {
    const requestId = await fal.submit(image("[foreign_result_url] x"), { signal });
    const ref = { model: "fal-ai/flux/schnell", requestId };
    await waitDone(ref);
    const err = await fal
      .result(ref, { signal, dir: await mkdtemp(path.join(dir, "f-")) })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "vendor_error", retryable: false });
    expect((err as Error).message).toMatch(/10\.0\.0\.7.*not allowed/);
  });
});
