import { describe, expect, it } from "vitest";
import { parseCommand, splitCommands } from "./offline-commands.ts";

describe("offline commands", () => {
  it("splits at commas, semicolons, sentence ends and 'then', never inside quotes or file names", () => {
    expect(
      splitCommands("add a title 'Hi, you. Then' at 2s, then add captions from talk.srt; render a draft."),
    ).toEqual(["add a title 'Hi, you. Then' at 2s", "add captions from talk.srt", "render a draft"]);
  });

  it.each([
    [
      "add a title 'Hello' at 2s for 3 seconds",
      { tool: "add_text", input: { text: "Hello", start: 2, duration: 3 } },
    ],
    ['add text "Bye" at 1.5s', { tool: "add_text", input: { text: "Bye", start: 1.5, duration: 3 } }],
    ["add intro.mp4 after clip 2", { tool: "add_clip", input: { upload: "intro.mp4", after: 2 } }],
    ["add upl_01ABC at 4s", { tool: "add_clip", input: { upload: "upl_01ABC", start: 4 } }],
    [
      "put the cockatoo clip after the intro",
      { tool: "add_clip", input: { upload: "cockatoo", after: "intro" } },
    ],
    ["trim clip 3 to 2 seconds", { tool: "trim_clip", input: { clip: 3, duration: 2 } }],
    ["trim clip 1 from 1s to 4s", { tool: "trim_clip", input: { clip: 1, in: 1, out: 4 } }],
    ["move clip 2 to 10s", { tool: "move_clip", input: { clip: 2, start: 10 } }],
    ["move clip 2 after clip 3", { tool: "move_clip", input: { clip: 2, after: 3 } }],
    ["split clip 1 at 1.5s", { tool: "split_clip", input: { clip: 1, at: 1.5 } }],
    ["delete clip 4", { tool: "delete_clip", input: { clip: 4 } }],
    ["crossfade all cuts", { tool: "add_transition", input: { all: true, type: "fade" } }],
    ["add a wipe between 1 and 2", { tool: "add_transition", input: { between: [1, 2], type: "wipeleft" } }],
    ["add captions from talk.srt", { tool: "add_captions", input: { upload: "talk.srt" } }],
    ["add captions from the SRT", { tool: "add_captions", input: {} }],
    ["set music volume to 40%", { tool: "set_volume", input: { track: "music", gain: 0.4 } }],
    ["duck the music under speech", { tool: "set_volume", input: { track: "music", duckUnder: "speech" } }],
    ["fade out the music over 3s", { tool: "set_volume", input: { track: "music", fadeOut: 3 } }],
    ["find chapters", { tool: "detect_chapters", input: {} }],
    ["suggest b-roll", { tool: "suggest_broll", input: {} }],
    ["generate an image of a red panda", { tool: "generate_image", input: { prompt: "a red panda" } }],
    ["animate clip 2", { tool: "animate_image", input: { image: 2 } }],
    ["render a draft", { tool: "start_render", input: { quality: "draft" } }],
    [
      "make a 60 s vertical clip with captions",
      { tool: "auto_edit", input: { count: 1, maxDuration: 60, aspectRatio: "9:16", captions: true } },
    ],
    [
      "make 3 square clips from talk.mp4 about pricing",
      { tool: "auto_edit", input: { count: 3, aspectRatio: "1:1", upload: "talk.mp4", prompt: "pricing" } },
    ],
    ["make a 30-second short", { tool: "auto_edit", input: { count: 1, maxDuration: 30 } }],
    ["render the final version", { tool: "start_render", input: { quality: "high" } }],
    ["undo", { tool: "undo", input: {} }],
    ["show the composition", { tool: "get_composition", input: {} }],
    ["remove silences longer than 1.5 seconds", { tool: "remove_silences", input: { longerThan: 1.5 } }],
    ["remove the silences", { tool: "remove_silences", input: {} }],
    [
      "cut out the pauses from clip 2 longer than 2s",
      { tool: "remove_silences", input: { clip: 2, longerThan: 2 } },
    ],
    [
      "remove silences longer than 0.8s on track Voice",
      { tool: "remove_silences", input: { track: "Voice", longerThan: 0.8 } },
    ],
    ["remove silences from the interview", { tool: "remove_silences", input: { clip: "interview" } }],
    ["cut the silences longer than 1 s", { tool: "remove_silences", input: { longerThan: 1 } }],
    ["remove the ums", { tool: "remove_fillers", input: {} }],
    ["cut out the ums and uhs from clip 2", { tool: "remove_fillers", input: { clip: 2 } }],
    ["remove filler words on track Voice", { tool: "remove_fillers", input: { track: "Voice" } }],
    ["get rid of the erms", { tool: "remove_fillers", input: {} }],
    ["remove the silences and the ums", { tool: "remove_silences", input: { fillers: true } }],
    [
      "remove the ums and pauses longer than 0.8s from the interview",
      { tool: "remove_silences", input: { longerThan: 0.8, fillers: true, clip: "interview" } },
    ],
    ["cut at scene changes", { tool: "cut_at_scene_changes", input: {} }],
    ["reframe to 9:16", { tool: "reframe", input: { aspectRatio: "9:16" } }],
    ["make it vertical", { tool: "reframe", input: { aspectRatio: "9:16" } }],
    ["Make the video square", { tool: "reframe", input: { aspectRatio: "1:1" } }],
    ["reframe the composition for landscape", { tool: "reframe", input: { aspectRatio: "16:9" } }],
    ["cut clip 3 at its scene changes", { tool: "cut_at_scene_changes", input: { clip: 3 } }],
    ["split the trailer into shots", { tool: "cut_at_scene_changes", input: { clip: "trailer" } }],
    ["add captions from speech", { tool: "add_captions_from_speech", input: {} }],
    [
      "add karaoke captions from the speech of interview.mp4",
      { tool: "add_captions_from_speech", input: { upload: "interview.mp4", mode: "karaoke" } },
    ],
    [
      "caption the speech of the talk as karaoke",
      { tool: "add_captions_from_speech", input: { upload: "talk", mode: "karaoke" } },
    ],
    ["transcribe interview.mp4", { tool: "transcribe_speech", input: { upload: "interview.mp4" } }],
    ["make chapters from the talk", { tool: "make_chapters", input: { upload: "talk" } }],
  ])("%s", (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  it("does not understand conversation", () => {
    expect(parseCommand("what is the weather like")).toBeNull();
    expect(parseCommand("add a sparkle between 1 and 2")).toBeNull();
  });
});
