import type { Cue } from "../composition/schema.ts";

const TIME = /(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})/;

function parseTime(text: string): number | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, h, min, s, frac] = m;
  return Number(h ?? 0) * 3600 + Number(min) * 60 + Number(s) + Number((frac ?? "0").padEnd(3, "0")) / 1000;
}

/**
 * Parses SRT or WebVTT text into cues (seconds, text with `\n` line breaks). Tolerates a BOM,
 * CRLF, SRT counters, VTT headers, NOTE/STYLE/REGION blocks and cue settings; strips markup
 * tags (`<b>`, `<c.x>`, `{\an8}`). Blocks without a valid `start --> end` line are skipped;
 * cues with `end <= start` are dropped. Never throws.
 */
export function parseSubtitles(text: string): Cue[] {
  const blocks = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split(/\n{2,}/);
  const cues: Cue[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    const arrow = lines.findIndex((l) => l.includes("-->"));
    if (arrow < 0) continue;
    const [left, right] = (lines[arrow] ?? "").split("-->");
    const start = parseTime(left ?? "");
    const end = parseTime(right ?? "");
    if (start === undefined || end === undefined || !(end > start)) continue;
    const body = lines
      .slice(arrow + 1)
      .map((l) => l.replace(/<[^>]*>/g, "").replace(/\{\\[^}]*\}/g, ""))
      .join("\n")
      .trim();
    if (body.length > 0) cues.push({ start, end, text: decodeEntities(body) });
  }
  return cues.sort((a, b) => a.start - b.start);
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, "\u00a0")
    .replace(/&amp;/g, "&");
}
