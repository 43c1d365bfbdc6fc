import { z } from "zod";
import { detectChapters, suggestBroll } from "../../analysis/index.ts";
import type { Marker } from "../../composition/schema.ts";
import { applyEdit } from "../edit.ts";
import { type ToolContext, ToolError, toolErrorOf } from "../tool-context.ts";
import { defineTool } from "./define.ts";
import { pickSubtitleUpload, readCues } from "./subtitles.ts";

/** Runs an analysis function, turning its 400/413 into a tool error the model can read. */
function analyse<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const e = toolErrorOf(err);
    throw new ToolError(e.code, e.message);
  }
}

/**
 * Finds the chapters of a timed transcript and, unless `addMarkers` is false, adds them as
 * timeline markers (a marker already there is not added twice).
 * @param tool - the tool name recorded with the edit.
 */
export async function addChapterMarkers(
  ctx: ToolContext,
  toolCallId: string,
  tool: string,
  input: {
    transcript: { start: number; end: number; text: string }[];
    duration: number;
    maxChapters?: number | undefined;
    addMarkers?: boolean;
    label: string;
  },
) {
  const { chapters } = analyse(() =>
    detectChapters({
      transcript: input.transcript,
      duration: input.duration,
      ...(input.maxChapters ? { maxChapters: input.maxChapters } : {}),
    }),
  );
  const list = chapters.map((c) => ({ start: c.start, end: c.end, title: c.title }));
  if (input.addMarkers === false) {
    return { summary: `Found ${list.length} chapters in ${input.label}`, chapters: list };
  }
  return applyEdit(ctx, toolCallId, tool, (draft) => {
    const markers = draft.markers ?? [];
    for (const c of list) {
      if (!markers.some((m) => Math.abs(m.time - c.start) < 1e-3 && m.label === c.title)) {
        markers.push({ time: c.start, duration: c.end - c.start, label: c.title } as Marker);
      }
    }
    draft.markers = markers.sort((a, b) => a.time - b.time);
    return {
      summary: `Found ${list.length} chapters in ${input.label}; added them as markers`,
      chapters: list,
    };
  });
}

/** The `detect_chapters` tool: what it does is its `description`, shown to the model. */
export const detectChaptersTool = defineTool({
  name: "detect_chapters",
  description:
    "Find chapters (topic changes) in a subtitle upload of the project (id or name; default the one the captions use or the only one) and add them as timeline markers.",
  input: z.object({
    upload: z.string().min(1).max(300).optional(),
    maxChapters: z.number().int().min(1).max(50).optional(),
    addMarkers: z.boolean().default(true),
  }),
  async run(input, { ctx, toolCallId }) {
    const upload = await pickSubtitleUpload(ctx, input.upload);
    const cues = await readCues(ctx, upload);
    return addChapterMarkers(ctx, toolCallId, "detect_chapters", {
      transcript: cues.map((c) => ({ start: c.start, end: c.end, text: c.text })),
      duration: Math.max(...cues.map((c) => c.end)),
      maxChapters: input.maxChapters,
      addMarkers: input.addMarkers,
      label: upload.name,
    });
  },
});

/** The `suggest_broll` tool: what it does is its `description`, shown to the model. */
export const suggestBrollTool = defineTool({
  name: "suggest_broll",
  description:
    "Suggest where B-roll (cut-away footage) would help, from a subtitle upload of the project: times, keywords and a stock-footage search query for each insert. Changes nothing.",
  input: z.object({
    upload: z.string().min(1).max(300).optional(),
    windowSec: z.number().positive().max(60).optional(),
    minGapSec: z.number().min(0).max(3600).optional(),
  }),
  async run(input, { ctx }) {
    const upload = await pickSubtitleUpload(ctx, input.upload);
    const cues = await readCues(ctx, upload);
    const { suggestions } = analyse(() =>
      suggestBroll({
        subtitles: cues.map((c) => ({ start: c.start, end: c.end, text: c.text })),
        ...(input.windowSec !== undefined ? { windowSec: input.windowSec } : {}),
        ...(input.minGapSec !== undefined ? { minGapSec: input.minGapSec } : {}),
      }),
    );
    return {
      summary: `${suggestions.length} B-roll suggestion(s) for ${upload.name}${suggestions
        .slice(0, 5)
        .map((s) => `; ${s.start}s: ${s.query}`)
        .join("")}`,
      suggestions: suggestions.map((s) => ({
        start: s.start,
        end: s.end,
        keywords: s.keywords,
        query: s.query,
      })),
    };
  },
});
