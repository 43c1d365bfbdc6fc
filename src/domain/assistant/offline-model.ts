import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { type CommandCall, OFFLINE_COMMANDS, parseCommand, splitCommands } from "./offline-commands.ts";
import { SUMMARY_MARKER } from "./prompt.ts";
import type { CompositionSummary } from "./summary.ts";

/** Model id the offline command model reports. */
export const OFFLINE_MODEL_ID = "command-v1";

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** What the short help lists: one line per kind of edit, with an example. */
const SHORT_HELP = [
  "add a title: add a title 'Hello' at 2s for 3 seconds",
  "place, trim, move, split or delete clips: trim clip 2 to 4 seconds",
  "transitions: crossfade all cuts",
  "captions: add karaoke captions from speech",
  "sound: remove silences, duck the music under speech",
  "render a draft, undo, show the composition",
];

/** Asking for the whole list of commands. */
const HELP_REQUEST = /^\s*(?:help|commands|what can you do\??|list (?:the |all )?commands)\s*[.!?]*\s*$/i;

/**
 * Help text: that this is an offline command model, and what it understands, one line per item:
 * a short list by kinds of edit, or (`full`) every command it parses.
 */
export function offlineHelp(prefix?: string, full = false): string {
  return [
    ...(prefix ? [prefix] : []),
    full
      ? "I am Cutroom's offline command model, not a language model: I understand these editing commands (several at once, separated by commas or 'then'):"
      : "I am Cutroom's offline command model, not a language model. I can:",
    ...(full ? OFFLINE_COMMANDS : SHORT_HELP).map((c) => `- ${c}`),
    full
      ? "Set ASSISTANT_MODEL to use a language model instead."
      : "Say 'help' for every command I understand.",
  ].join("\n");
}

type Step = { kind: "call"; call: CommandCall } | { kind: "text"; text: string };

function summaryOf(prompt: LanguageModelV4Prompt): CompositionSummary | null {
  const system = prompt.find((m) => m.role === "system")?.content ?? "";
  const at = system.indexOf(SUMMARY_MARKER);
  if (at < 0) return null;
  try {
    const parsed = JSON.parse(system.slice(at + SUMMARY_MARKER.length)) as CompositionSummary;
    return Array.isArray(parsed.clips) ? parsed : null;
  } catch {
    return null;
  }
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\.[a-z0-9]{2,4}$/, "")
    .replace(/^the\s+/, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/** "put X after Y" with X already on the timeline means moving it, not adding it again. */
function refine(call: CommandCall, summary: CompositionSummary | null): CommandCall {
  if (call.tool !== "add_clip" || !summary || call.input.after === undefined) return call;
  const want = norm(String(call.input.upload));
  const onTimeline = summary.clips.filter((c) => norm(c.source) === want || norm(c.source).includes(want));
  if (onTimeline.length !== 1) return call;
  return {
    tool: "move_clip",
    input: { clip: (onTimeline[0] as { id: string }).id, after: call.input.after },
  };
}

/**
 * Decides the next step from the conversation: the user's last message is split into
 * commands; each step runs the next command as one tool call; once all ran (or one failed, or
 * one is not understood) the step answers with text reporting what happened.
 */
export function planStep(prompt: LanguageModelV4Prompt): Step {
  let lastUser = -1;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
  });
  if (lastUser < 0) return { kind: "text", text: offlineHelp() };
  const userParts = (prompt[lastUser]?.content ?? []) as { type: string; text?: string }[];
  const userText = userParts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join(" ");
  const results: { tool: string; ok: boolean; text: string }[] = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result") continue;
      const o = part.output;
      const ok = o.type === "json" || o.type === "text";
      const value = "value" in o ? o.value : undefined;
      const text =
        typeof value === "string"
          ? value
          : typeof (value as { summary?: unknown })?.summary === "string"
            ? String((value as { summary: string }).summary)
            : JSON.stringify(value ?? null);
      results.push({ tool: part.toolName, ok, text });
    }
  }
  const done = results.map((r) => (r.ok ? `${r.text}.` : `${r.tool} failed: ${r.text}`));
  const failed = results.some((r) => !r.ok);
  const commands = splitCommands(userText);
  if (!failed && results.length < commands.length) {
    const clause = commands[results.length] as string;
    if (results.length === 0 && HELP_REQUEST.test(clause))
      return { kind: "text", text: offlineHelp(undefined, true) };
    const call = parseCommand(clause);
    if (call) return { kind: "call", call: refine(call, summaryOf(prompt)) };
    const prefix = `I did not understand "${clause}".`;
    return { kind: "text", text: results.length === 0 ? offlineHelp(prefix) : [...done, prefix].join("\n") };
  }
  if (failed && results.length < commands.length) done.push("I stopped there; nothing else was changed.");
  return { kind: "text", text: done.join("\n") || "Done." };
}

let callCounter = 0;

function parts(step: Step): { content: LanguageModelV4Content[]; finishReason: LanguageModelV4FinishReason } {
  if (step.kind === "text") {
    return { content: [{ type: "text", text: step.text }], finishReason: { unified: "stop", raw: "stop" } };
  }
  return {
    content: [
      {
        type: "tool-call",
        toolCallId: `call_${Date.now().toString(36)}_${(++callCounter).toString(36)}`,
        toolName: step.call.tool,
        input: JSON.stringify(step.call.input),
      },
    ],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
  };
}

/**
 * Cutroom's offline command model as an AI SDK language model (specification v4): no
 * network, deterministic. It understands the plain editing commands of {@link OFFLINE_COMMANDS},
 * turning each into a tool call, and answers anything else with a short help text saying it is
 * an offline command model. Text is streamed word by word; tool inputs in two pieces.
 */
export function createOfflineModel(): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions) {
      const { content, finishReason } = parts(planStep(options.prompt));
      return { content, finishReason, usage: USAGE, warnings: [] };
    },
    async doStream(options: LanguageModelV4CallOptions) {
      const { content, finishReason } = parts(planStep(options.prompt));
      const chunks: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const c of content) {
        if (c.type === "text") {
          chunks.push({ type: "text-start", id: "t0" });
          for (const word of c.text.match(/\S+\s*|\s+/g) ?? [])
            chunks.push({ type: "text-delta", id: "t0", delta: word });
          chunks.push({ type: "text-end", id: "t0" });
        } else if (c.type === "tool-call") {
          const half = Math.ceil(c.input.length / 2);
          chunks.push(
            { type: "tool-input-start", id: c.toolCallId, toolName: c.toolName },
            { type: "tool-input-delta", id: c.toolCallId, delta: c.input.slice(0, half) },
            { type: "tool-input-delta", id: c.toolCallId, delta: c.input.slice(half) },
            { type: "tool-input-end", id: c.toolCallId },
            c,
          );
        }
      }
      chunks.push({ type: "finish", usage: USAGE, finishReason });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
      };
    },
  };
}
