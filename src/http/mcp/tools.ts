/**
 * The MCP tools that are API routes: each is one operation of the REST API, called with the
 * caller's identity, so its input schema, validation, scopes, ownership checks, quota and
 * errors are the route's own.
 */

/** An MCP tool that calls the route with OpenAPI `operationId`. */
export interface RouteTool {
  name: string;
  operationId: string;
  /** Replaces the route's summary and description as the tool's description. */
  description?: string;
}

/** Tool name → the route's `operationId`, in the order `tools/list` shows them. */
const OPERATIONS: Record<string, string> = {
  list_projects: "listProjects",
  create_project: "createProject",
  list_uploads: "listUploads",
  get_upload: "getUpload",
  list_compositions: "listCompositions",
  get_composition: "getComposition",
  create_composition: "createComposition",
  patch_composition: "patchComposition",
  list_composition_versions: "listCompositionVersions",
  get_composition_version: "getCompositionVersion",
  diff_composition_versions: "diffCompositionVersions",
  revert_composition: "revertComposition",
  reframe_composition: "reframeComposition",
  preflight_render: "checkRender",
  start_render: "startRender",
  get_render: "getRender",
  list_renders: "listRenders",
  cancel_render: "cancelRender",
  auto_edit: "createAutoedit",
  get_autoedit: "getAutoedit",
  detect_chapters: "detectChapters",
  summarize_clip: "summarizeClip",
  suggest_broll: "suggestBroll",
  list_generation_models: "listGenerationModels",
  generate_image: "generateImage",
  generate_video: "generateVideo",
  get_generation: "getGeneration",
  create_assistant_session: "createAssistantSession",
  run_assistant: "runAssistant",
};

/** Descriptions that tell an agent more than the route's summary and description. */
const DESCRIPTIONS: Record<string, string> = {
  preflight_render:
    "Check a render without rendering: the same body as start_render (a stored `compositionId` or an inline `composition`, and `output`). Runs the checks a render runs before ffmpeg starts (sources resolved and readable, fonts, the render plan) and returns `ok`, every problem (code, message, clip and upload ids) and the warnings the render would carry. Nothing is stored, queued or charged.",
  patch_composition:
    'Apply a JSON Patch (RFC 6902) to a composition atomically. `body` is the array of operations; paths address the composition as get_composition returns it. The result is validated like a create; a failed `test` operation is a 409. Send `if-match` (the version in quotes, e.g. `"3"`) to refuse the patch when someone else changed it first.',
  revert_composition:
    'Go back to an earlier version of a composition (list_composition_versions shows them): writes a new version whose name and timeline equal `body.version`\'s. `if-match` is required: the current version in quotes (e.g. `"7"`); a stale one is a 409.',
  auto_edit:
    "Turn long video recordings (upload ids) into short clips: returns a queued auto-edit job at once. It transcribes the uploads offline, ranks candidate stretches (whole sentences, at most `target.maxDuration` s, with reasons), then builds the top `target.count` as compositions in the project, one version per automated step (cut, reframe to `target.aspectRatio` following the faces, karaoke captions, silence and filler removal, music ducked under speech, the loudness target), so each step can be reverted. Poll get_autoedit with its id.",
  reframe_composition:
    'Reframe a composition for another aspect ratio (`body.aspectRatio`: "9:16", "1:1" or "16:9"; optional `body.clipIds`): the canvas changes and each video clip gets a crop window that follows the faces in it, shot by shot (two people far apart: two stacked windows; no face: the most active region or the centre). Returns the new composition, `shots` and `reasons`; one new version. `if-match` is required: the current version in quotes (e.g. `"3"`).',
  run_assistant:
    "Send a message to an assistant session (create_assistant_session first) and wait for the run to end. The assistant edits the session's composition with its own tools. Returns the run's events (`session`, `text`, `tool_start`, `tool_result`, `patch`, … and one terminal `done` or `error`); the text says what the assistant said.",
};

/** Every route tool, in the order `tools/list` shows them. */
export const ROUTE_TOOLS: readonly RouteTool[] = Object.entries(OPERATIONS).map(([name, operationId]) => ({
  name,
  operationId,
  ...(DESCRIPTIONS[name] ? { description: DESCRIPTIONS[name] } : {}),
}));
