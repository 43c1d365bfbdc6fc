import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpeg, tempDir } from "../../../test/fixtures/render/media.ts";
import { FfmpegError, runFfmpeg } from "../../media/ffmpeg-run.ts";
import { type FaultContext, readFfmpegFault } from "./ffmpeg-fault.ts";

const ctx: FaultContext = {
  inputs: [
    { index: 0, clipId: "m1", path: "/data/uploads/upl_a" },
    { index: 1, clipId: "m3", path: "/data/uploads/upl_png" },
    { index: 2, clipId: "intro shot", path: "/work/rnd_x/remote-1" },
  ],
  clipTags: { m1: "m1", m3: "m3", m5: "m5", "~1": "intro shot" },
};

describe("readFfmpegFault: ffmpeg's error output → the clip", () => {
  it("a decoding error names the input's clip, ahead of the filter errors it causes downstream", () => {
    const stderr = [
      "[png @ 0x5604b3f22f00] chunk too big",
      "Error while decoding stream #1:0: Invalid data found when processing input",
      "Cannot determine format of input stream 1:0 after EOF",
      "[xfade@m5 @ 0x55d97234f0c0] Failed to configure output pad on xfade@m5",
    ].join("\n");
    expect(readFfmpegFault(stderr, ctx)).toEqual({
      kind: "input",
      clipId: "m3",
      inputIndex: 1,
      decoding: true,
    });
  });

  it("the first line that points somewhere decides: a filter failing before a damaged input is reported", () => {
    const stderr = [
      "[xfade@m5 @ 0x55d97234f0c0] Failed to configure output pad on xfade@m5",
      "Error while decoding stream #0:0: Invalid data found when processing input",
    ].join("\n");
    expect(readFfmpegFault(stderr, ctx)).toEqual({ kind: "filter", clipId: "m5", filter: "xfade" });
  });

  it("ffmpeg 7's decoder prefix ([vist#2:0/png @ …]) names the input too", () => {
    const stderr = "[vist#2:0/png @ 0x55] Decoding error: Invalid data found when processing input";
    expect(readFfmpegFault(stderr, ctx)).toMatchObject({
      kind: "input",
      clipId: "intro shot",
      decoding: true,
    });
  });

  it("a named filter instance ([xfade@m5 @ 0x…], [scale@~1 @ 0x…]) names its clip", () => {
    const xfade = [
      "[xfade@m5 @ 0x55d97234f0c0] First input link main parameters (size 160x90) do not match the corresponding second input link xfade parameters (size 320x180)",
      "[xfade@m5 @ 0x55d97234f0c0] Failed to configure output pad on xfade@m5",
      "Error reinitializing filters!",
      "Failed to inject frame into filter network: Invalid argument",
      "Error while processing the decoded data for stream #1:0",
    ].join("\n");
    expect(readFfmpegFault(xfade, ctx)).toEqual({ kind: "filter", clipId: "m5", filter: "xfade" });
    expect(readFfmpegFault("[scale@~1 @ 0xab12] Invalid size", ctx)).toEqual({
      kind: "filter",
      clipId: "intro shot",
      filter: "scale",
    });
  });

  it("unnamed and unknown filter instances name no clip", () => {
    const stderr = "[Parsed_xfade_56 @ 0x55] Failed to configure output pad\n[xfade@zz @ 0x55] nope";
    expect(readFfmpegFault(stderr, ctx)).toMatchObject({ kind: "global", known: false });
  });

  it("a line naming an input's file or index (without decoding) names its clip", () => {
    expect(readFfmpegFault("/data/uploads/upl_a: Invalid data found when processing input", ctx)).toEqual({
      kind: "input",
      clipId: "m1",
      inputIndex: 0,
      decoding: false,
    });
    expect(readFfmpegFault("Error while processing the decoded data for stream #2:0", ctx)).toMatchObject({
      kind: "input",
      clipId: "intro shot",
    });
  });

  it("a stream specifier matching nothing is a missing picture or sound (the caller finds the input)", () => {
    // The message quotes the whole graph, over many lines.
    const stderr =
      "Stream specifier ':a' in filtergraph description [0:v]setpts@m1=PTS-STARTPTS[a];\n[0:a]asetpts@m1=PTS-STARTPTS[b] matches no streams.";
    expect(readFfmpegFault(stderr, ctx)).toEqual({ kind: "missing-stream", stream: "audio" });
    expect(readFfmpegFault("[7:v]setpts@m3=PTS-STARTPTS[c] matches no streams.", ctx)).toEqual({
      kind: "missing-stream",
      stream: "video",
    });
  });

  it("causes of the whole render are named: killed, disk full, memory, encoder, output, not started", () => {
    const cause = (stderr: string, exit = {}) => {
      const f = readFfmpegFault(stderr, ctx, exit);
      return f.kind === "global" && f.known ? f.cause : `not known: ${JSON.stringify(f)}`;
    };
    expect(cause("", { exitCode: null, signal: "SIGKILL" })).toMatch(/killed by the system.*out of memory/);
    expect(cause("[mp4 @ 0x1] Error writing trailer of output.mp4: No space left on device")).toMatch(
      /ran out of disk space/,
    );
    expect(cause("[libx264 @ 0x1] malloc of size 1 failed: Cannot allocate memory")).toMatch(
      /ran out of memory/,
    );
    expect(cause("[libx264 @ 0x55] height not divisible by 2 (160x91)")).toMatch(
      /encoder could not be set up/,
    );
    expect(cause("Error writing trailer of output.mp4: Invalid argument")).toMatch(/writing the output file/);
    expect(cause("setpriv: failed to execute ffmpeg: No such file or directory")).toMatch(
      /could not be started/,
    );
    expect(readFfmpegFault("something else entirely", ctx)).toMatchObject({ kind: "global", known: false });
    // The machine's resources win over a damaged input reported before them.
    const full =
      "Error while decoding stream #0:0: Invalid data found\n[mp4 @ 0x1] Error writing trailer: No space left on device";
    expect(cause(full)).toMatch(/ran out of disk space/);
    // A decoder sharing an encoder's name is not the encoder.
    expect(readFfmpegFault("[png @ 0x5604] chunk too big", ctx)).toMatchObject({
      kind: "global",
      known: false,
    });
  });
});

describe("readFfmpegFault on real ffmpeg runs (the log prefixes this ffmpeg writes)", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir("cutroom-fault-"));
    await ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=160x90", "-frames:v", "1", join(dir, "ok.png")]);
    // A PNG signature followed by garbage: it probes as a PNG but cannot be decoded.
    const bad = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(2000, 7),
    ]);
    await writeFile(join(dir, "bad.png"), bad);
  });
  afterAll(() => cleanup?.());

  const failureOf = async (args: string[]) => {
    const err = await runFfmpeg({
      args: ["-hide_banner", "-nostdin", "-loglevel", "error", ...args],
      cwd: dir,
      durationSec: 2,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FfmpegError);
    return err as FfmpegError;
  };
  const live: FaultContext = {
    inputs: [
      { index: 0, clipId: "m1", path: "ok.png" },
      { index: 1, clipId: "m3", path: "bad.png" },
    ],
    clipTags: { m1: "m1", m3: "m3", m5: "m5" },
  };

  it("an xfade between pictures of different sizes is blamed on the clip the transition leads into", async () => {
    const err = await failureOf([
      ..."-f lavfi -i testsrc2=s=160x90:r=25:d=1 -f lavfi -i testsrc2=s=320x180:r=25:d=1".split(" "),
      "-filter_complex",
      "[0:v]format@m1=yuv420p[a];[1:v]format@m5=yuv420p[b];[a][b]xfade@m5=transition=radial:duration=0.5:offset=0.2[out]",
      ..."-map [out] -f null -".split(" "),
    ]);
    expect(readFfmpegFault(err.stderrTail, live)).toEqual({ kind: "filter", clipId: "m5", filter: "xfade" });
  });

  it("an image that cannot be decoded is blamed on its clip's input", async () => {
    const err = await failureOf([
      ..."-i ok.png -i bad.png".split(" "),
      "-filter_complex",
      "[0:v]scale@m1=160:90[a];[1:v]scale@m3=160:90[b];[a][b]overlay@m3[out]",
      ..."-map [out] -f null -".split(" "),
    ]);
    expect(readFfmpegFault(err.stderrTail, live)).toMatchObject({
      kind: "input",
      clipId: "m3",
      decoding: true,
    });
  });
});
