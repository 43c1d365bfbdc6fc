import type { CompositionSummary } from "./summary.ts";

/** The line after which the system prompt carries the composition summary as JSON. */
export const SUMMARY_MARKER = "Current composition (JSON):";

/**
 * The system prompt of one step: what the assistant is for, its rules, and a fresh compact
 * summary of the composition (read just before the step).
 */
export function systemPrompt(summary: CompositionSummary | { error: string }): string {
  return [
    "You are Cutroom's video editing assistant. You edit one composition (a timeline of tracks and clips) by calling tools.",
    "Rules: times are seconds. Refer to clips by id (clp_…) or by their number n in the summary. Tracks are ordered bottom to top.",
    "Every edit is applied as a versioned JSON Patch; when a tool fails, read its error, fix the input or explain the problem to the user.",
    "Call get_composition when you need more than the summary below. start_render ends your turn. Answer briefly.",
    SUMMARY_MARKER,
    JSON.stringify(summary),
  ].join("\n");
}
