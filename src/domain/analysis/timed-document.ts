/**
 * One parse of a validated transcript, shared by chapters and summary: joined text with
 * its time map, wink parse, timed units and content-term ids.
 */
import { type ParsedText, parseText } from "./nlp.ts";
import { indexTerms, type TermIndex } from "./terms.ts";
import { type TimedText, type TimedUnit, type Transcript, toTimedText, toTimedUnits } from "./transcript.ts";

/** Everything the algorithms need about a transcript. */
export interface TimedDocument {
  timed: TimedText;
  parsed: ParsedText;
  units: TimedUnit[];
  terms: TermIndex;
}

/** Parses a validated transcript spread over `duration` seconds (with POS tags and sentences). */
export function buildTimedDocument(transcript: Transcript, duration: number): TimedDocument {
  const timed = toTimedText(transcript, duration);
  const parsed = parseText(timed.text, { pos: true, sentences: true });
  const units = toTimedUnits(timed, parsed);
  const terms = indexTerms(parsed);
  return { timed, parsed, units, terms };
}
