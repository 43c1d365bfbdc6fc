import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";

/** One scripted model step: the parts it streams, or a stream of its own. */
export type ScriptStep = (
  options: LanguageModelV4CallOptions,
) => Promise<LanguageModelV4StreamPart[] | ReadableStream<LanguageModelV4StreamPart>>;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** Parts of a step that calls one tool. */
export function toolCallStep(
  toolCallId: string,
  toolName: string,
  input: unknown,
): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) },
    { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
  ];
}

/** Parts of a step that answers with text. */
export function textStep(text: string): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "1" },
    ...text.split(/(?<= )/).map((delta) => ({ type: "text-delta" as const, id: "1", delta })),
    { type: "text-end", id: "1" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
}

/**
 * A scripted language model (`MockLanguageModelV4` from `ai/test`) whose steps tests set one
 * run at a time; every model call takes the next step. Records the prompts it saw.
 */
export function scriptedModel() {
  let steps: ScriptStep[] = [];
  const prompts: LanguageModelV4CallOptions["prompt"][] = [];
  const model = new MockLanguageModelV4({
    provider: "scripted",
    modelId: "script-1",
    doStream: async (options) => {
      prompts.push(options.prompt);
      const step = steps.shift();
      if (!step) throw new Error("The script has no step left");
      const out = await step(options);
      return { stream: Array.isArray(out) ? arrayStream(out) : out };
    },
  });
  return {
    model,
    prompts,
    /** Replaces the remaining steps. */
    script(next: ScriptStep[]) {
      steps = [...next];
      prompts.length = 0;
    },
    remaining: () => steps.length,
  };
}

function arrayStream<T>(parts: T[]): ReadableStream<T> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}

/** A promise and its resolver, to hold a scripted step until the test lets it go. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}
