import { describe, expect, it } from "vitest";
import {
  audioAsset,
  canvas,
  clip,
  colorAsset,
  imageAsset,
  resolvedAudio,
  resolvedImage,
  resolvedVideo,
  track,
  videoAsset,
} from "../../../test/fixtures/render/compositions.ts";
import type { Timeline } from "../composition/schema.ts";
import { withoutFilterNames } from "./graph.ts";
import { buildRenderPlan, outputSize } from "./plan.ts";
import { RenderError, type RenderOutputOptions } from "./types.ts";
import { inputSeekTime } from "./video-branch.ts";

const assets = new Map([
  ["upl_a", resolvedVideo("/media/a.mp4", 10)],
  ["upl_b", resolvedVideo("/media/b.mp4", 10)],
  ["upl_silent", resolvedVideo("/media/silent.mp4", 10, false)],
  [
    "upl_h264",
    {
      path: "/media/h264.mp4",
      type: "video" as const,
      media: { duration: 10, hasAudio: false, width: 160, height: 90, videoCodec: "h264" },
    },
  ],
  ["upl_music", resolvedAudio("/media/music.wav", 30)],
  ["upl_logo", resolvedImage("/media/logo.png", 200, 100)],
  [
    "upl_srt",
    { path: "/media/c.srt", type: "subtitle" as const, text: "1\n00:00:00,400 --> 00:00:01,600\nHello\n" },
  ],
]);

function plan(composition: Timeline, output: Partial<RenderOutputOptions> = {}) {
  return buildRenderPlan({
    composition,
    assets,
    output: { format: "mp4", ...output },
    outputPath: "out.mp4",
  });
}

function graphOf(args: string[]): string {
  const i = args.indexOf("-filter_complex");
  return withoutFilterNames(args[i + 1] ?? "");
}

/** The `-ss`/`-t` of each input, in order. */
function inputWindows(args: string[]): { ss?: string; t: string; file: string }[] {
  const out: { ss?: string; t: string; file: string }[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "-i") continue;
    const before = args.slice(Math.max(0, i - 6), i);
    const ss = before.includes("-ss") ? before[before.indexOf("-ss") + 1] : undefined;
    out.push({
      ...(ss ? { ss } : {}),
      t: before[before.lastIndexOf("-t") + 1] ?? "",
      file: args[i + 1] ?? "",
    });
  }
  return out;
}

const twoClipsWithFade = (): Timeline => ({
  canvas: canvas(320, 180, 25),
  tracks: [
    track("video", [
      clip({ start: 0, duration: 2, trim: 1, asset: videoAsset("upl_a") }),
      clip({
        start: 2,
        duration: 2,
        trim: 3,
        asset: videoAsset("upl_b"),
        transition: { type: "pixeldissolve", duration: 0.4 },
      }),
    ]),
  ],
});

describe("buildRenderPlan: video graph", () => {
  it("limits decoding threads of video inputs (not of stills or audio) and the graph's threads when asked", () => {
    const composition: Timeline = {
      canvas: canvas(320, 180, 25),
      tracks: [
        track("video", [clip({ start: 0, duration: 2, asset: videoAsset("upl_a") })]),
        track("video", [
          clip({ start: 0, duration: 1, asset: imageAsset("upl_logo"), transform: { width: 0.2 } }),
        ]),
        track("audio", [clip({ start: 0, duration: 2, asset: audioAsset("upl_music") })]),
      ],
    };
    const args = buildRenderPlan({
      composition,
      assets,
      output: { format: "mp4" },
      outputPath: "out.mp4",
      decoderThreads: 1,
      filterThreads: 1,
    }).args;
    const argsBefore = (file: string) => args.slice(args.indexOf(file) - 7, args.indexOf(file)).join(" ");
    expect(argsBefore("/media/a.mp4")).toMatch(/-threads 1 -ss \S+ -t \S+ -i$/);
    expect(argsBefore("/media/logo.png")).not.toContain("-threads");
    expect(argsBefore("/media/music.wav")).not.toContain("-threads");
    expect(plan(composition).args).not.toContain("-threads");
    // A global option, before the graph it applies to.
    const at = args.indexOf("-filter_complex_threads");
    expect(args[at + 1]).toBe("1");
    expect(at).toBeLessThan(args.indexOf("-filter_complex"));
    expect(plan(composition).args).not.toContain("-filter_complex_threads");
  });

  it("builds one ffmpeg invocation with one filter graph and progress on stdout", () => {
    const p = plan(twoClipsWithFade());
    expect(p.args.filter((a) => a === "-filter_complex")).toHaveLength(1);
    expect(p.args.slice(0, 8)).toEqual([
      "-hide_banner",
      "-nostdin",
      "-y",
      "-loglevel",
      "error",
      "-progress",
      "pipe:1",
      "-nostats",
    ]);
    expect(p.args.at(-1)).toBe("out.mp4");
    expect(p.durationSec).toBe(4);
    expect(p.output).toEqual({ format: "mp4", width: 320, height: 180, fps: 25, audio: true });
  });

  it("bounds each input with -ss/-t including transition handles (d/2 each side of the cut)", () => {
    const p = plan(twoClipsWithFade());
    // Clip A plays source 1..3 and needs 0.2 s after its out-point; clip B plays 3..5 and needs
    // 0.2 s before. Each input starts 1 s earlier (the preroll), which its timestamps discount.
    expect(inputWindows(p.args)).toEqual([
      { ss: "0", t: "3.28", file: "/media/a.mp4" },
      { ss: "1.8", t: "3.28", file: "/media/b.mp4" },
    ]);
    expect(graphOf(p.args).match(/\[\d:v\]setpts=PTS-1\/TB,fps=fps=25:start_time=0/g)).toHaveLength(2);
    expect(p.warnings).toEqual([]);
  });

  it("centres the xfade on the cut without changing the timeline length", () => {
    const g = graphOf(plan(twoClipsWithFade()).args);
    // Transition window = frames [45, 55): only A's last 10 frames and B's first 10 go through
    // xfade, offset minus half a frame (progress (k + ½) / 10), duration 10 frames; the rest is concatenated.
    expect(g).toContain("trim=start_frame=0:end_frame=45");
    expect(g).toContain("trim=start_frame=45:end_frame=55");
    expect(g).toContain("trim=start_frame=0:end_frame=10");
    expect(g).toContain("trim=start_frame=10:end_frame=55");
    expect(g).toMatch(
      /xfade=transition=dissolve:duration=0\.4:offset=-0\.02,format=yuva420p\[xf\d+\];\n\[cut\d+\]\[xf\d+\]\[cut\d+\]concat=n=3/,
    );
    // Each branch has an exact frame count: A = 50 + 5 tail, B = 5 lead + 50.
    expect(g).toContain("trim=end_frame=55");
    expect(g.match(/trim=end_frame=55/g)).toHaveLength(2);
    expect(g).toContain("color=c=0x000000:s=320x180:r=25,trim=end_frame=100");
  });

  it("names each clip's filters for the clip (xfade@<clip id>), so ffmpeg's messages name it; odd ids get a ~n tag", () => {
    const doc = twoClipsWithFade();
    const clips = doc.tracks[0]?.clips ?? [];
    const [first, second] = clips;
    if (!first || !second) throw new Error("fixture has two clips");
    first.id = "intro shot, take 2";
    second.id = "m5";
    const p = plan(doc);
    const g = p.args[p.args.indexOf("-filter_complex") + 1] ?? "";
    expect(p.clipTags).toEqual({ "~1": "intro shot, take 2", m5: "m5" });
    expect(g).toMatch(/\[cut\d+\]\[cut\d+\]xfade@m5=transition=dissolve/);
    expect(g).toMatch(/\[0:v\]setpts@~1=PTS-1\/TB,fps@~1=fps=25:start_time=0/);
    expect(g).toMatch(/\[1:v\]setpts@m5=/);
    // The background and the joins belong to no clip.
    expect(g).toMatch(/^color=c=0x000000[^@]*\[bg\d+\]/m);
    expect(g).toMatch(/\]concat=n=3/);
    // Quoted option values keep their commas.
    expect(g).toContain("crop@m5=w='min(iw,ih*320/180)'");
    expect(withoutFilterNames(g)).not.toMatch(/@(m5|~1)/);
  });

  it("normalises every branch (fps, format, setsar, time base) and layers tracks bottom to top", () => {
    const composition: Timeline = {
      canvas: canvas(320, 180, 30),
      tracks: [
        track("video", [clip({ start: 0, duration: 3, asset: videoAsset("upl_a") })]),
        track("video", [
          clip({
            start: 1,
            duration: 1,
            asset: imageAsset("upl_logo"),
            fit: "contain",
            transform: { x: 0.75, y: 0.25, width: 0.5, rotate: 10, opacity: 0.5 },
            filter: "greyscale",
            crop: { left: 0.1 },
            motion: { type: "zoomIn" },
            fadeIn: 0.5,
          }),
        ]),
      ],
    };
    const p = plan(composition);
    const g = graphOf(p.args);
    const chains = g.split(";\n");
    const overlays = chains.filter((c) => c.includes("overlay="));
    expect(overlays).toHaveLength(2);
    expect(overlays[0]).toMatch(/^\[bg\d+\]\[clip\d+\]overlay/);
    // A track without transitions overlays each clip's own picture at its place (the rotated
    // 172x106 box at x 154, y -8, cropped to the canvas) while it plays (from frame 30).
    expect(overlays[1]).toMatch(/^\[ov\d+\]\[clip\d+\]overlay=x=154:y=0:eof_action=pass/);
    const logo = chains.find((c) => c.startsWith("[1:v]")) ?? "";
    for (const part of [
      "fps=30",
      "crop=w=",
      "hue=s=0",
      "force_original_aspect_ratio=decrease",
      "zoompan=",
      "format=yuva420p",
      "lut=a=val*0.5",
      "rotate=a=0.174533",
      "crop=166:98:0:8:exact=1",
      "setsar=1",
      "settb=AVTB",
      "fade=t=in:st=0:d=0.5:alpha=1",
      "setpts=round((N+30)*1/(30*TB))",
    ]) {
      expect(logo).toContain(part);
    }
    // A still is read once (one frame), fitted once, then repeated for the clip's 30 frames.
    const logoInput = p.args.indexOf("/media/logo.png");
    expect(p.args[logoInput - 1]).toBe("-i");
    expect(p.args).not.toContain("-loop");
    expect(logo).toMatch(/^\[1:v\]trim=end_frame=1,/);
    expect(logo).toMatch(
      /force_original_aspect_ratio=decrease.*loop=loop=-1:size=1:start=0,trim=end_frame=30,.*zoompan=/,
    );
    // Box: width 0.5 of 320 = 160, height from the image aspect (2:1) = 80.
    expect(logo).toContain("scale=w=160:h=80");
  });

  it("resizes the base track's opaque video with zimg, other pictures with swscale; sets the rate only where a branch lacks it", () => {
    const composition: Timeline = {
      canvas: canvas(320, 180, 30),
      tracks: [
        track("video", [clip({ id: "base", start: 0, duration: 3, asset: videoAsset("upl_h264") })]),
        track("video", [
          clip({ id: "pip", start: 0, duration: 1, asset: videoAsset("upl_b"), transform: { width: 0.5 } }),
        ]),
        track("video", [
          clip({ id: "tint", start: 0, duration: 1, asset: colorAsset("#ff000080") }),
          clip({ id: "still", start: 1, duration: 1, asset: imageAsset("upl_logo") }),
        ]),
      ],
    };
    const chains = (
      plan(composition).args[plan(composition).args.indexOf("-filter_complex") + 1] ?? ""
    ).split(";\n");
    const chainOf = (id: string) => chains.find((c) => c.includes(`@${id}=`) && c.startsWith("[")) ?? "";
    // The base track's video (H.264, so opaque, and covering the canvas): 8-bit 4:2:0, then zimg
    // resizes it.
    expect(chainOf("base")).toMatch(
      /format@base=yuv420p,zscale@base=w=320:h=180:filter=bicubic,format@base=yuv420p/,
    );
    // Its link has the canvas rate from its first fps: the branch ends with the time base only.
    expect(chainOf("base")).toMatch(/settb@base=1\/30\[clip\d+\]$/);
    // A still's repeated frame keeps its demuxer's rate: fps sets the canvas rate.
    expect(chainOf("still")).toMatch(/,fps@still=30,setpts@still=round/);
    expect(chainOf("still")).not.toContain("zscale");
    // A picture with transparency around it (an upper track's box) keeps swscale.
    expect(chainOf("pip")).toContain("scale@pip=w=160:h=90");
    expect(chainOf("pip")).not.toContain("zscale");
  });

  it("holds the edge frame and warns when a transition lacks source handles", () => {
    const composition: Timeline = {
      canvas: canvas(),
      tracks: [
        track("video", [
          clip({ id: "a", start: 0, duration: 2, trim: 7.9, asset: videoAsset("upl_a") }),
          clip({
            id: "b",
            start: 2,
            duration: 2,
            asset: videoAsset("upl_b"),
            transition: { type: "fade", duration: 1 },
          }),
        ]),
      ],
    } as Timeline;
    const p = plan(composition);
    expect(p.warnings.map((w) => [w.code, w.clipId])).toEqual([
      ["TRANSITION_HANDLE_MISSING", "a"],
      ["TRANSITION_HANDLE_MISSING", "b"],
    ]);
    expect(graphOf(p.args)).toContain("tpad=start=12:start_mode=clone");
    expect(inputWindows(p.args)[1]?.ss).toBe("0");
  });

  it("uses a transparent blank for gaps so a transition from a gap reveals lower tracks", () => {
    const composition: Timeline = {
      canvas: canvas(),
      tracks: [
        track("video", [
          clip({
            start: 1,
            duration: 1,
            asset: colorAsset("#ff0000"),
            transition: { type: "wipeup", duration: 0.4 },
          }),
        ]),
      ],
    };
    const g = graphOf(plan(composition).args);
    expect(g).toMatch(/color=c=black@0:s=160x90:r=25,format=yuva420p,trim=end_frame=30,/);
    expect(g).toMatch(/xfade=transition=wipeup:duration=0\.4:offset=-0\.02/);
  });
});

describe("buildRenderPlan: text", () => {
  const withText = (family = "DejaVu Sans"): Timeline => ({
    canvas: canvas(320, 180, 25),
    tracks: [
      track("video", [clip({ start: 0, duration: 2, asset: colorAsset("#202020") })]),
      track("video", [
        clip({
          id: "t1",
          start: 0.4,
          duration: 1.2,
          asset: { type: "text", text: "Hi", style: { family, size: 40 } },
        }),
      ]),
      track("video", [clip({ start: 0, duration: 2, asset: colorAsset("#00000000") })]),
      track("video", [
        clip({
          start: 0,
          duration: 2,
          asset: {
            type: "caption",
            mode: "karaoke",
            style: { family: "serif", size: 20 },
            source: { uploadId: "upl_srt" },
          },
        }),
      ]),
    ],
  });

  it("draws each text track at its layer through one ASS file, shifting timestamps into its band", () => {
    const p = plan(withText());
    const g = graphOf(p.args);
    expect(p.assFile?.path).toBe("render.ass");
    expect(p.files).toEqual([p.assFile]);
    const subtitles = g.split(";\n").filter((c) => c.includes("subtitles="));
    expect(subtitles).toHaveLength(2);
    // Every frame is nudged half a millisecond (in microsecond ticks) into its own millisecond
    // while libass draws it; band 1 starts at ceil(2 s) + 10 = 12 s.
    expect(subtitles[0]).toContain(
      "settb=AVTB,setpts=PTS+500,subtitles=filename=render.ass:fontsdir=fonts,setpts=PTS-500",
    );
    expect(subtitles[1]).toContain(
      "settb=AVTB,setpts=PTS+12000500,subtitles=filename=render.ass:fontsdir=fonts,setpts=PTS-12000500",
    );
    expect(p.assFile?.content).toContain("Dialogue: 0,0:00:00.40,0:00:01.60,c0,");
    expect(p.assFile?.content).toContain("Dialogue: 0,0:00:12.40,");
    expect(p.fonts.map((f) => f.path).sort()).toEqual(["fonts/DejaVuSans.ttf", "fonts/DejaVuSerif.ttf"]);
    expect(g.indexOf("subtitles")).toBeLessThan(g.lastIndexOf("overlay"));
  });

  it("fails with FONT_NOT_FOUND naming the clip for an unknown family", () => {
    try {
      plan(withText("Nope Sans"));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RenderError);
      expect((error as RenderError).toJSON()).toMatchObject({
        code: "FONT_NOT_FOUND",
        clipId: "t1",
        retryable: false,
        message: expect.stringMatching(
          /^clip t1: font family "Nope Sans" is neither bundled .* nor uploaded; upload the font/,
        ),
      });
    }
  });
});

describe("buildRenderPlan: audio", () => {
  const withAudio = (): Timeline => ({
    canvas: canvas(),
    tracks: [
      track(
        "video",
        [
          clip({ start: 0, duration: 2, asset: videoAsset("upl_a"), volume: 0.5 }),
          clip({ start: 2, duration: 1, asset: videoAsset("upl_silent") }),
          clip({ start: 3, duration: 1, asset: videoAsset("upl_b"), muted: true }),
        ],
        { id: "voice" },
      ),
      track(
        "audio",
        [clip({ start: 0.4, duration: 3, asset: audioAsset("upl_music"), speed: 0.25, fadeIn: 1 })],
        {
          id: "music",
          volume: 0.8,
          ducking: { under: ["voice"], amountDb: 12 },
        },
      ),
    ],
  });

  it("places clips with adelay in samples, mixes with normalize=0, ducks and limits", () => {
    const g = graphOf(plan(withAudio()).args);
    expect(g).toContain(
      "[0:a]asetpts=PTS-STARTPTS,aresample=48000,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo",
    );
    expect(g).toContain("volume=0.5");
    expect(g).toContain("atempo=0.5,atempo=0.5");
    expect(g).toContain("afade=t=in:st=0:d=1");
    expect(g).toContain("adelay=delays=19200S:all=1");
    expect(g).toContain("volume=0.8");
    expect(g).toMatch(/sidechaincompress=threshold=0\.02:ratio=4\.000/);
    expect(g).toContain("amix=inputs=2:normalize=0");
    expect(g).toContain("alimiter=limit=0.97:attack=5:release=50:level=0,apad=whole_dur=4,atrim=end=4");
    // The silent and the muted clip contribute no sound.
    expect(g).not.toContain("[1:a]");
    expect(g).not.toContain("[2:a]");
  });

  it("renders silence when nothing sounds", () => {
    const g = graphOf(
      plan({
        canvas: canvas(),
        tracks: [track("video", [clip({ start: 0, duration: 1, asset: colorAsset("#ff0000") })])],
      }).args,
    );
    expect(g).toContain("anullsrc=r=48000:cl=stereo,atrim=end=1");
  });
});

describe("buildRenderPlan: outputs", () => {
  const simple = (): Timeline => ({
    canvas: canvas(320, 180, 30),
    tracks: [track("video", [clip({ start: 0, duration: 4, asset: videoAsset("upl_a") })])],
  });

  it.each([
    ["mp4", ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23"], ["-movflags", "+faststart"]],
    ["webm", ["-c:v", "libvpx-vp9"], ["-c:a", "libopus"]],
    ["gif", ["-loop", "0", "-f", "gif"], []],
    ["mp3", ["-c:a", "libmp3lame", "-b:a", "192k"], []],
    ["wav", ["-c:a", "pcm_s16le"], []],
    ["jpg", ["-frames:v", "1", "-c:v", "mjpeg"], []],
    ["png", ["-frames:v", "1", "-c:v", "png"], []],
  ] as const)("%s uses its encoders", (format, a, b) => {
    const args = plan(simple(), { format }).args.join(" ");
    expect(args).toContain(a.join(" "));
    if (b.length) expect(args).toContain(b.join(" "));
    const g = graphOf(plan(simple(), { format }).args);
    expect(g.includes("[0:v]")).toBe(format !== "mp3" && format !== "wav");
    expect(g.includes("[0:a]")).toBe(
      format === "mp4" || format === "webm" || format === "mp3" || format === "wav",
    );
    if (format === "gif") expect(g).toContain("palettegen=stats_mode=full");
  });

  it("maps quality presets to encoder settings", () => {
    expect(plan(simple(), { quality: "draft" }).args.join(" ")).toContain("-preset ultrafast -crf 28");
    expect(plan(simple(), { quality: "high" }).args.join(" ")).toContain("-preset slow -crf 18");
  });

  it("renders a range natively: inputs start at the range and the output is trimmed exactly", () => {
    const p = plan(simple(), { range: { start: 1, duration: 2 } });
    expect(p.durationSec).toBe(2);
    expect(inputWindows(p.args)[0]?.ss).toBe("0");
    expect(graphOf(p.args)).toContain("[0:v]setpts=PTS-1/TB,fps=fps=30:start_time=0");
    expect(graphOf(p.args)).toContain("trim=end_frame=60");
  });

  it("renders a still at frameAt, its sources seeked a quarter second before it", () => {
    const p = plan(simple(), { format: "png", frameAt: 2 });
    expect(p.durationSec).toBeCloseTo(1 / 30, 6);
    expect(inputWindows(p.args)[0]?.ss).toBe("1.75");
    expect(graphOf(p.args)).toContain("[0:v]setpts=PTS-0.25/TB,fps=fps=30:start_time=0");
    expect(p.output).toEqual({ format: "png", width: 320, height: 180, audio: false });
  });

  it("honours width/height/fps overrides, scaling text and boxes natively", () => {
    const p = plan(simple(), { width: 160, fps: 25 });
    expect(p.output).toMatchObject({ width: 160, height: 90, fps: 25 });
    expect(graphOf(p.args)).toContain("color=c=0x000000:s=160x90:r=25");
    expect(outputSize(1920, 1080, 1080, 1080)).toEqual({
      width: 1080,
      height: 1080,
      renderWidth: 1080,
      renderHeight: 608,
      padded: true,
    });
  });

  it("rejects an empty composition and a range after the end", () => {
    expect(() => plan({ canvas: canvas(), tracks: [] })).toThrow(RenderError);
    expect(() => plan(simple(), { range: { start: 10, duration: 1 } })).toThrow(/after the end/);
  });

  it("fails with ASSET_NOT_FOUND when an asset was not resolved", () => {
    const c: Timeline = {
      canvas: canvas(),
      tracks: [track("video", [clip({ start: 0, duration: 1, asset: videoAsset("upl_gone") })])],
    };
    expect(() => plan(c)).toThrow(expect.objectContaining({ code: "ASSET_NOT_FOUND", uploadId: "upl_gone" }));
  });
});

describe("inputSeekTime", () => {
  const keyframes = { times: [0, 2, 4], frameSec: 1 / 30 };

  it("seeks a second before the stream without keyframes, never before the file's start", () => {
    expect(inputSeekTime(4, 1)).toBe(3);
    expect(inputSeekTime(0.4, 1)).toBe(0);
  });

  it("seeks no earlier than the keyframe the first shown frame decodes from", () => {
    const frame = 1 / 30;
    // A stream that starts on a keyframe decodes nothing of the GOP before it.
    expect(inputSeekTime(4, 1, keyframes, frame)).toBe(4);
    expect(inputSeekTime(4.5, 1, keyframes, frame)).toBe(4);
    // An in-point a fifth of a frame before a keyframe shows the keyframe first.
    expect(inputSeekTime(4 - 0.2 / 30, 1, keyframes, frame)).toBe(4);
    // A third of a frame before it the frame before may be shown: that GOP is decoded.
    expect(inputSeekTime(4 - 0.34 / 30, 1, keyframes, frame)).toBeCloseTo(3 - 0.34 / 30, 9);
    // Slow motion at a quarter speed shows the frame before up to an eighth of a frame before
    // the keyframe: a fifth is too far.
    expect(inputSeekTime(4 - 0.2 / 30, 1, keyframes, frame / 4)).toBeCloseTo(3 - 0.2 / 30, 9);
    // Where the preroll stays inside the GOP it is kept; without the output's frame nothing changes.
    expect(inputSeekTime(5.5, 1, keyframes, frame)).toBe(4.5);
    expect(inputSeekTime(4, 1, keyframes)).toBe(3);
  });
});
