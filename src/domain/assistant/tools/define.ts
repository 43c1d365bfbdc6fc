import { type Tool, tool } from "ai";
import type { z } from "zod";
import { asToolError, type ToolContext } from "../tool-context.ts";

/** What a tool's `run` receives besides its validated input. */
export interface ToolCall {
  ctx: ToolContext;
  toolCallId: string;
}

/** A Cutroom tool: a name, what it does (for the model), a zod input schema and its work. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** Does the work; returns a JSON object whose `summary` says what happened in one line. */
  run(input: z.infer<S>, call: ToolCall): Promise<{ summary: string } & Record<string, unknown>>;
}

/** Declares a tool (type inference helper). */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolSpec<S> {
  return spec;
}

/**
 * Turns tool specs into AI SDK tools bound to a run. Before each tool runs, `announce` emits its
 * `tool_start` (once per call id), so the start event precedes the tool's patches and progress.
 */
export function toAiTools(
  // biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool list
  specs: ToolSpec<any>[],
  ctx: ToolContext,
  announce: (toolCallId: string, name: string, input: unknown) => Promise<void>,
): Record<string, Tool> {
  const out: Record<string, Tool> = {};
  for (const spec of specs) {
    out[spec.name] = tool({
      description: spec.description,
      inputSchema: spec.input,
      execute: async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => {
        await announce(options.toolCallId, spec.name, input);
        const running = spec.run(input, { ctx, toolCallId: options.toolCallId });
        ctx.inFlight?.add(running);
        try {
          return await running;
        } catch (err) {
          // A cancelled run ends as it does; any other failure reaches the model as its message.
          if (options.abortSignal?.aborted) throw err;
          throw asToolError(err);
        } finally {
          ctx.inFlight?.delete(running);
        }
      },
    });
  }
  return out;
}
