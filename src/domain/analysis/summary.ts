/**
 * One-line clip summary and keywords: continuous LexRank over sentences picks the most
 * central content, which is cleaned of spoken fillers and compressed to ≤ 160 characters;
 * keywords are TextRank key phrases deduplicated by lemma.
 */
import { invalidRequest } from "../../errors.ts";
import { aggregatePhrases, findPhraseOccurrences, rankKeyPhrases, rankWords } from "./key-phrases.ts";
import { buildTimedDocument, type TimedDocument } from "./timed-document.ts";
import { lastEnd, readNumberOption, type Transcript, validateTranscript } from "./transcript.ts";

/** Request of `POST /api/v1/clips/summarize`. */
export interface SummarizeClipInput {
  /** Plain text or timed segments (seconds); timing is not needed for a summary. */
  transcript: Transcript;
  /** Most keywords to return, integer 1..20 (default 8). */
  maxKeywords?: number;
}

/** Response of `POST /api/v1/clips/summarize`. */
export interface SummarizeClipOutput {
  /** One line (no line breaks), at most 160 characters, ending like a sentence. */
  summary: string;
  /** Key phrases, most important first, no two with the same lemmas. */
  keywords: string[];
}

/** Longest summary in characters. */
export const MAX_SUMMARY_CHARS = 160;
const DEFAULT_KEYWORDS = 8;
const MAX_KEYWORDS = 20;

/**
 * Continuous LexRank (Erkan & Radev 2004, "LexRank: Graph-based Lexical Centrality as
 * Salience in Text Summarization", JAIR 22): PageRank over the cosine-similarity graph of
 * TF-IDF sentence vectors. The similarity matrix is never formed: with unit rows X,
 * S = X·Xᵀ, so each power step costs O(non-zeros).
 */
export function lexRank(
  unitTerms: number[][],
  vocabularySize: number,
  damping = 0.85,
  iterations = 50,
): Float64Array {
  const n = unitTerms.length;
  const df = new Float64Array(vocabularySize);
  const lastSeen = new Int32Array(vocabularySize).fill(-1);
  let nnz = 0;
  unitTerms.forEach((terms, i) => {
    for (const t of terms) {
      if (lastSeen[t] !== i) {
        lastSeen[t] = i;
        df[t] = (df[t] as number) + 1;
        nnz++;
      }
    }
  });
  // CSR rows of L2-normalised TF-IDF weights.
  const rowPtr = new Int32Array(n + 1);
  const col = new Int32Array(nnz);
  const val = new Float64Array(nnz);
  const tf = new Float64Array(vocabularySize);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const terms = unitTerms[i] as number[];
    const from = at;
    for (const t of terms) {
      if (tf[t] === 0) col[at++] = t;
      tf[t] = (tf[t] as number) + 1;
    }
    let norm = 0;
    for (let j = from; j < at; j++) {
      const t = col[j] as number;
      const w = (tf[t] as number) * Math.log((n + 1) / (df[t] as number));
      val[j] = w;
      norm += w * w;
      tf[t] = 0;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let j = from; j < at; j++) val[j] = (val[j] as number) / norm;
    rowPtr[i + 1] = at;
  }
  // xtv = Xᵀ·v; then (S·v)_i = X_i·xtv; the self-similarity X_i·X_i (= 1 or 0) is removed.
  const xtv = new Float64Array(vocabularySize);
  const multiply = (v: Float64Array, out: Float64Array) => {
    xtv.fill(0);
    for (let i = 0; i < n; i++) {
      const vi = v[i] as number;
      if (vi === 0) continue;
      for (let j = rowPtr[i] as number, e = rowPtr[i + 1] as number; j < e; j++) {
        const t = col[j] as number;
        xtv[t] = (xtv[t] as number) + vi * (val[j] as number);
      }
    }
    for (let i = 0; i < n; i++) {
      let s = 0;
      let self = 0;
      for (let j = rowPtr[i] as number, e = rowPtr[i + 1] as number; j < e; j++) {
        const w = val[j] as number;
        s += w * (xtv[col[j] as number] as number);
        self += w * w;
      }
      out[i] = s - self * (v[i] as number);
    }
  };
  const degree = new Float64Array(n);
  multiply(new Float64Array(n).fill(1), degree);
  const p = new Float64Array(n).fill(1 / Math.max(1, n));
  const q = new Float64Array(n);
  const next = new Float64Array(n);
  for (let iter = 0; iter < iterations; iter++) {
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const d = degree[i] as number;
      if (d > 1e-12) q[i] = (p[i] as number) / d;
      else {
        q[i] = 0;
        dangling += p[i] as number;
      }
    }
    multiply(q, next);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const v = (1 - damping) / n + damping * ((next[i] as number) + dangling / n);
      next[i] = v;
      sum += v;
    }
    let change = 0;
    for (let i = 0; i < n; i++) {
      const v = (next[i] as number) / sum;
      change += Math.abs(v - (p[i] as number));
      p[i] = v;
    }
    if (change < 1e-6) break;
  }
  return p;
}

const FILLER_RE = /(^|[\s,])(?:um+|uh+|uhm|erm|er|hmm+|mm+|mhm)(?=[\s,.!?]|$)[,]?/giu;
const INLINE_HEDGE_RE = /,\s*(?:you know|i mean|like|sort of|kind of)\s*,/giu;
const LEADING_RE =
  /^(?:so|and|but|or|well|okay|ok|right|now|yeah|yes|like|basically|actually|honestly|anyway|also|then|i mean|you know|look|listen|see|oh)\b[,]?\s+/iu;
const CLAUSE_BREAK_RE = /(?:[,;:]\s|\s[—–-]\s|\s(?:because|which|but|and|so|while|although|whereas)\s)/giu;

/** Removes spoken fillers and leading discourse markers; collapses whitespace to one line. */
export function cleanSpoken(text: string): string {
  let s = text.replace(/\s+/gu, " ").trim();
  s = s.replace(FILLER_RE, "$1").replace(INLINE_HEDGE_RE, ",");
  let prev = "";
  while (prev !== s) {
    prev = s;
    s = s.replace(LEADING_RE, "").trim();
  }
  return s
    .replace(/^[^\p{L}\p{N}"'“‘(¿¡]+/u, "")
    .replace(/\s+([,.!?;:])/gu, "$1")
    .replace(/,{2,}/gu, ",")
    .replace(/^[,;:\s]+/u, "")
    .replace(/\s+/gu, " ")
    .trim();
}

/** Capitalises and ends the text like a sentence. */
function finishSentence(s: string): string {
  let t = s.replace(/[\s,;:—–-]+$/u, "").trim();
  if (t === "") return t;
  if (!/[.!?…。！？]$/u.test(t)) t += ".";
  const first = t.codePointAt(0) as number;
  const ch = String.fromCodePoint(first);
  return ch.toUpperCase() + t.slice(ch.length);
}

/**
 * Compresses a sentence to at most `max` characters: cleaned as-is when it fits, else cut
 * at the last clause break that fits (keeping at least 40% of the budget), else at a word
 * boundary with an ellipsis. Returns the text and the share of characters kept.
 */
export function compressSentence(text: string, max = MAX_SUMMARY_CHARS): { text: string; kept: number } {
  // Text of only symbols or emoji has nothing to clean away: keep it as said.
  const cleaned = cleanSpoken(text) || text.replace(/\s+/gu, " ").trim();
  const whole = finishSentence(cleaned);
  if (whole.length <= max) return { text: whole, kept: 1 };
  let cut = -1;
  for (const m of cleaned.matchAll(CLAUSE_BREAK_RE)) {
    const at = m.index ?? -1;
    if (at > 0.4 * max && at <= max - 2) cut = at;
  }
  if (cut > 0) {
    const t = finishSentence(cleaned.slice(0, cut));
    if (t.length <= max) return { text: t, kept: t.length / whole.length };
  }
  const budget = max - 1;
  let end = cleaned.lastIndexOf(" ", budget);
  if (end < max * 0.5) end = budget;
  const head = cleaned
    .slice(0, end)
    .replace(/[\s,;:—–-]+$/u, "")
    .trim();
  const t = `${finishSentence(head).replace(/[.!?]$/u, "")}…`;
  return { text: t.length <= max ? t : `${t.slice(0, max - 1)}…`, kept: (t.length / whole.length) * 0.6 };
}

const ANAPHORA_RE = /^(?:it|this|that|these|those|they|he|she|there|here)\b/iu;

/** Picks and compresses the most central sentence (LexRank × readability priors). */
function pickSummary(doc: TimedDocument): string {
  const { parsed, units } = doc;
  const unitTerms = units.map((u) => {
    const out: number[] = [];
    for (let i = u.tokenStart; i < u.tokenEnd; i++) {
      const t = doc.terms.termOf[i] as number;
      if (t >= 0) out.push(t);
    }
    return out;
  });
  const text = (i: number) => {
    const u = units[i];
    if (!u) return "";
    return parsed.text.slice(parsed.start[u.tokenStart] as number, parsed.end[u.tokenEnd - 1] as number);
  };
  if (units.length === 0) return compressSentence(parsed.text).text;
  const centrality = lexRank(unitTerms, doc.terms.vocabulary.length);
  const scored = units.map((_, i) => {
    const words = (unitTerms[i] as number[]).length;
    const prior = words < 3 ? 0.2 : words < 5 ? 0.6 : 1;
    return { i, score: (centrality[i] as number) * prior };
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  let best = { text: "", value: -1 };
  for (const s of scored.slice(0, 12)) {
    const raw = text(s.i);
    let prior = 1;
    if (/\?\s*$/u.test(raw)) prior *= 0.5;
    const c = compressSentence(raw);
    if (c.text === "") continue;
    if (ANAPHORA_RE.test(c.text)) prior *= 0.8;
    const value = s.score * prior * Math.sqrt(c.kept);
    if (value > best.value) best = { text: c.text, value };
  }
  return best.text !== "" ? best.text : compressSentence(parsed.text).text;
}

/**
 * Summarises a clip in one line and lists its keywords.
 *
 * The summary is the most central sentence by continuous LexRank (Erkan & Radev 2004) over
 * TF-IDF vectors of content lemmas, weighted against fragments and questions, cleaned of
 * spoken fillers ("um", leading "so,"), and compressed at a clause break to at most 160
 * characters. Keywords are noun-phrase candidates ranked by TextRank (Mihalcea & Tarau
 * 2004), with no two sharing a lemma set (and none nested in a better one).
 *
 * @returns `{ summary, keywords }`; `summary` is one line of ≤ 160 characters; `keywords` has at
 *   most `maxKeywords` entries. Deterministic.
 * @throws AppError 400 `invalid_request` (`/transcript`, `/transcript/3/end`, `/maxKeywords`)
 *   for a blank transcript, bad segments or a bad `maxKeywords`; 413 beyond 50,000 segments.
 */
export function summarizeClip(input: SummarizeClipInput): SummarizeClipOutput {
  if (typeof input !== "object" || input === null) {
    throw invalidRequest("body must be an object", [{ path: "", message: "must be an object" }]);
  }
  const transcript = validateTranscript(input.transcript);
  const maxKeywords = readNumberOption(input.maxKeywords, {
    path: "/maxKeywords",
    fallback: DEFAULT_KEYWORDS,
    min: 1,
    max: MAX_KEYWORDS,
    integer: true,
  });
  const doc = buildTimedDocument(transcript, Math.max(1, lastEnd(transcript)));
  const summary = pickSummary(doc);
  const occurrences = findPhraseOccurrences(doc.parsed, doc.terms);
  const scores = rankWords(occurrences, doc.terms.vocabulary.length);
  const keywords = rankKeyPhrases(aggregatePhrases(occurrences), scores, maxKeywords).map((p) => p.display);
  return { summary, keywords };
}
