import { detectChaptersTool, suggestBrollTool } from "./analysis.ts";
import { autoEdit } from "./autoedit.ts";
import { addCaptions, setVolume } from "./captions-audio.ts";
import type { ToolSpec } from "./define.ts";
import { animateImage, generateImage, startRenderTool } from "./media.ts";
import { cutAtSceneChanges, removeFillers, removeSilences } from "./recut.ts";
import { reframeTool } from "./reframe.ts";
import { getComposition, listUploads, undo } from "./session.ts";
import { addCaptionsFromSpeech, makeChapters, transcribeSpeech } from "./speech.ts";
import { addClip, addText, addTransition, deleteClip, moveClip, splitClip, trimClip } from "./timeline.ts";

/** Every assistant tool, in the order the model is shown them. */
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool list
export const ASSISTANT_TOOLS: ToolSpec<any>[] = [
  getComposition,
  listUploads,
  addClip,
  trimClip,
  moveClip,
  splitClip,
  deleteClip,
  addText,
  addCaptions,
  setVolume,
  addTransition,
  removeSilences,
  removeFillers,
  cutAtSceneChanges,
  reframeTool,
  detectChaptersTool,
  suggestBrollTool,
  transcribeSpeech,
  addCaptionsFromSpeech,
  makeChapters,
  autoEdit,
  generateImage,
  animateImage,
  startRenderTool,
  undo,
];

/** The tool that ends the loop once called. */
export const FINAL_TOOL = "start_render";
