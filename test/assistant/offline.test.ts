import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApp, type TestApp } from "../helpers/app.ts";
import { type AssistantClient, assistantClient, chatTurn, ofType } from "./helpers.ts";
import { uploadTestMedia } from "./media.ts";

let t: TestApp;
let c: AssistantClient;
let base: string;
let media: { projectId: string; ids: Record<string, string> };
beforeAll(async () => {
  t = await startTestApp({ assistant: { options: { renderFollowMs: 300, renderPollMs: 50 } } });
  base = await t.listen();
  c = await assistantClient(t, base);
  media = await uploadTestMedia(base, c.key);
}, 180_000);
afterAll(() => t.close());

const turn = (s: { id: string; compositionId: string }, message: string) => chatTurn(c, s, message);

describe("assistant with the offline command model", () => {
  it("adds a title: session, tool_start, patch before tool_result, text, done", async () => {
    const s = await c.session();
    expect(s.id).toMatch(/^ses_/);
    expect(s.model).toEqual({ provider: "offline", id: "command-v1", offline: true });
    expect(s.messages).toEqual([]);
    const { events, after, text } = await turn(s, "add a title 'Hello' at 2s for 3 seconds");
    expect(events.map((e) => e.event)).toEqual([
      "session",
      "tool_start",
      "patch",
      "tool_result",
      ...ofType(events, "text").map(() => "text"),
      "done",
    ]);
    expect(events[0]?.data).toMatchObject({ sessionId: s.id, compositionId: s.compositionId, version: 1 });
    expect(events[1]?.data).toMatchObject({
      name: "add_text",
      input: { text: "Hello", start: 2, duration: 3 },
    });
    expect(events.at(-1)?.data).toMatchObject({ reason: "stop", version: 2 });
    expect(text).toContain('Added text "Hello" at 2s for 3s');
    const clip = (
      after.tracks as { clips: { start: number; duration: number; asset: { text: string } }[] }[]
    )[0]?.clips[0];
    expect(clip).toMatchObject({ start: 2, duration: 3, asset: { text: "Hello" } });
    expect(after.canvas).toEqual({ width: 1920, height: 1080, fps: 30, background: "#000000" });
  });

  it("answers what it does not understand with a list of commands, changing nothing", async () => {
    const s = await c.session();
    const { events, text } = await turn(s, "What's the weather like?");
    expect(ofType(events, "patch")).toHaveLength(0);
    expect(text).toContain("offline command model, not a language model");
    expect(text).toContain("render a draft");
    expect(events.at(-1)?.data).toMatchObject({ type: "done", reason: "stop", version: 1 });
  });

  it("edits a real timeline by chat: add, put after, crossfade, captions, duck, chapters, undo, render", async () => {
    const s = await c.session({ projectId: media.projectId });
    expect(s.projectId).toBe(media.projectId);
    let r = await turn(s, "add intro, add cockatoo, add music");
    expect(ofType(r.events, "tool_result").every((e) => e.data.ok)).toBe(true);
    let summary = await clips(s.compositionId);
    expect(summary).toEqual([
      { track: 0, name: "intro.mp4", start: 0, duration: 4 },
      { track: 0, name: "cockatoo.mp4", start: 4, duration: 3 },
      { track: 1, name: "music.mp3", start: 0, duration: 8 },
    ]);

    r = await turn(
      s,
      "put the cockatoo clip after the intro, then trim clip 1 to 3 seconds, move clip 2 after clip 1",
    );
    summary = await clips(s.compositionId);
    expect(summary.slice(0, 2)).toEqual([
      { track: 0, name: "intro.mp4", start: 0, duration: 3 },
      { track: 0, name: "cockatoo.mp4", start: 3, duration: 3 },
    ]);

    r = await turn(s, "crossfade all cuts; add captions from talk.srt; duck the music under speech");
    expect(ofType(r.events, "tool_result").map((e) => [e.data.name, e.data.ok])).toEqual([
      ["add_transition", true],
      ["add_captions", true],
      ["set_volume", true],
    ]);
    const comp = r.after as unknown as {
      tracks: {
        id: string;
        kind: string;
        name?: string;
        ducking?: { under: string[] };
        clips: Record<string, unknown>[];
      }[];
    };
    expect(comp.tracks[0]?.clips[1]?.transition).toEqual({ type: "fade", duration: 0.5 });
    const captions = comp.tracks.find((x) => x.name === "Captions");
    expect(captions?.clips[0]?.asset).toMatchObject({
      type: "caption",
      source: { uploadId: media.ids["talk.srt"] },
    });
    const music = comp.tracks.find((x) => x.kind === "audio");
    expect(music?.ducking?.under).toEqual([comp.tracks[0]?.id]);

    r = await turn(s, "find chapters");
    const markers = (r.after as { markers?: { label: string; time: number }[] }).markers ?? [];
    expect(markers.length).toBeGreaterThan(1);
    expect(markers[0]?.time).toBe(0);

    const versionBeforeUndo = r.after.version;
    r = await turn(s, "undo");
    expect((r.after as { markers?: unknown[] }).markers ?? []).toEqual([]);
    expect(r.after.version).toBe(versionBeforeUndo + 1);

    r = await turn(s, "suggest b-roll");
    expect(ofType(r.events, "patch")).toHaveLength(0);
    expect(r.text).toMatch(/B-roll suggestion/);

    r = await turn(s, "render a draft");
    const render = ofType(r.events, "tool_result")[0]?.data as unknown as {
      ok: boolean;
      output: { renderId: string; status: string };
    };
    expect(render.ok).toBe(true);
    expect(render.output.renderId).toMatch(/^rnd_/);
    expect(ofType(r.events, "tool_progress").length).toBeGreaterThan(0);
    expect(r.events.at(-1)?.data).toMatchObject({ type: "done", reason: "render_started" });
    const job = await fetch(`${base}/api/render/${render.output.renderId}`, { headers: bearer(c.key) });
    expect(((await job.json()) as { compositionVersion: number }).compositionVersion).toBe(r.after.version);

    const history = await fetch(`${base}/api/assistant/session/${s.id}`, { headers: bearer(c.key) }).then(
      (x) =>
        x.json() as Promise<{
          messages: { role: string; text?: string; toolCalls?: unknown[] }[];
          activeRunId: null;
        }>,
    );
    expect(history.activeRunId).toBeNull();
    expect(history.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual([
      "add intro, add cockatoo, add music",
      "put the cockatoo clip after the intro, then trim clip 1 to 3 seconds, move clip 2 after clip 1",
      "crossfade all cuts; add captions from talk.srt; duck the music under speech",
      "find chapters",
      "undo",
      "suggest b-roll",
      "render a draft",
    ]);
    expect(history.messages.some((m) => m.role === "assistant" && (m.toolCalls ?? []).length > 0)).toBe(true);
    // Every turn keeps its tool calls and their results, not only its last step's reply.
    const turns: string[][] = [];
    for (const m of history.messages) {
      if (m.role === "user") turns.push([]);
      else turns.at(-1)?.push(m.role);
    }
    for (const roles of turns) expect(roles).toEqual(expect.arrayContaining(["assistant", "tool"]));
  }, 60_000);

  it("surfaces tool errors as tool_result ok:false and keeps going to a final answer", async () => {
    const s = await c.session({ projectId: media.projectId });
    const r = await turn(s, "delete clip 9");
    const result = ofType(r.events, "tool_result")[0]?.data;
    expect(result).toMatchObject({ ok: false, name: "delete_clip", error: { code: "not_found" } });
    expect(r.text).toContain("delete_clip failed");
    // The reply names what went wrong, never an internal class (`ToolError: …`).
    expect(r.text).toContain(String((result?.error as { message?: string } | undefined)?.message));
    expect(r.text).not.toMatch(/\w*Error\b/);
    expect(r.events.at(-1)?.data).toMatchObject({ type: "done", reason: "stop", version: 1 });
  });
});

async function clips(compositionId: string) {
  const comp = (await c.composition(compositionId)) as unknown as {
    tracks: { clips: { name?: string; start: number; duration: number; asset: { type: string } }[] }[];
  };
  return comp.tracks.flatMap((tr, track) =>
    tr.clips
      .filter((x) => x.asset.type !== "caption" && x.asset.type !== "text")
      .map((x) => ({ track, name: x.name, start: x.start, duration: Math.round(x.duration * 10) / 10 })),
  );
}
