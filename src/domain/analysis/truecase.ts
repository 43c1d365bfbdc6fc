/**
 * Truecasing of sentence starts. wink's tagger reads any capitalised word at the start of a
 * sentence as a proper noun, so "Engineers inspect the bridge" gave the keyword "Engineers"
 * and "Rest them in a jar" the keyword "Rest". Lexicon evidence decides which capitals are
 * only there because a sentence starts: after Lita et al., "tRuEcasIng", ACL 2003.
 */

/** One capital followed by lower-case letters only ("Engineers", not "USB" or "McDonald"). */
const TITLE_CASE_WORD = /^\p{Lu}\p{Ll}+$/u;

/**
 * Whether `word`, written with an initial capital, is a common word: wink's English lexicon
 * knows it in lower case and does not list it capitalised ("Engineers" → true; "China",
 * "May" (listed capitalised) and "Berlin" (not listed at all) → false). Words that are not
 * one capital plus lower-case letters, or whose lower case has another length, → false.
 *
 * @param knows - whether the lexicon has `word` exactly as written (case-sensitive).
 */
export function isCapitalisedCommonWord(word: string, knows: (word: string) => boolean): boolean {
  if (!TITLE_CASE_WORD.test(word)) return false;
  const lower = word.toLowerCase();
  return lower.length === word.length && !knows(word) && knows(lower);
}

/** A capitalised word (one capital, then lower-case letters) at `lastIndex`. */
const CAPITALISED_WORD = /\p{Lu}\p{Ll}+(?![\p{L}\p{M}\p{N}])/uy;
/** The next word starts with a capital letter (at `lastIndex`). */
const NEXT_CAPITALISED = /\s+\p{Lu}/uy;

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
const isSentenceMark = (c: number) => c === 46 || c === 33 || c === 63 || c === 0x2026; // . ! ? …
// Closing quotes and brackets after the mark: " ' ” ’ ) ]
const isCloser = (c: number) => c === 34 || c === 39 || c === 0x201d || c === 0x2019 || c === 41 || c === 93;

/**
 * Whether the text ends a sentence just before index `at` of `text` (after optional spaces
 * and closing quotes or brackets): a `.`, `!`, `?` or `…`, except a period after a single
 * letter (an initial) or after a word that wink's lexicon lists with its period ("Mr.", "etc.").
 */
function endsSentenceAt(text: string, at: number, knows: (word: string) => boolean): boolean {
  let i = at - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  while (i >= 0 && isCloser(text.charCodeAt(i))) i--;
  if (i < 0 || !isSentenceMark(text.charCodeAt(i))) return false;
  if (text.charCodeAt(i) !== 46) return true;
  let w = i;
  while (w > 0 && !isSpace(text.charCodeAt(w - 1))) w--;
  const word = text.slice(w, i);
  return !(/^\p{L}$/u.test(word) || (word !== "" && knows(`${word}.`)));
}

/**
 * Lower-cases the first letter of sentence-initial words that wink's English lexicon knows in
 * lower case but not capitalised ("Rest them in a jar" → "rest them in a jar"), so that its
 * tagger, which reads any capitalised word at a sentence start as a proper noun, tags them as
 * common words. Kept as written: words the lexicon lists capitalised ("China", "May") or not
 * at all ("Berlin", "Toyota"), and words followed by another capitalised word ("Admiral
 * Nelson"). Truecasing from lexicon evidence, after Lita et al., "tRuEcasIng", ACL 2003. The
 * text keeps its length, so character offsets are unchanged.
 *
 * @param line - one window's words.
 * @param before - what was said just before `line` ("" at the start of the transcript).
 * @param knows - whether the lexicon has `word` exactly as written.
 */
export function truecaseSentenceStarts(
  line: string,
  before: string,
  knows: (word: string) => boolean,
): string {
  let out = line;
  const consider = (at: number) => {
    CAPITALISED_WORD.lastIndex = at;
    const word = CAPITALISED_WORD.exec(out)?.[0];
    if (word === undefined) return;
    NEXT_CAPITALISED.lastIndex = at + word.length;
    if (NEXT_CAPITALISED.test(out)) return;
    if (!isCapitalisedCommonWord(word, knows)) return;
    out = out.slice(0, at) + word.toLowerCase() + out.slice(at + word.length);
  };
  const c = out.charCodeAt(0);
  const mayBeCapital = c >= 65 && (c <= 90 || c >= 128);
  if (mayBeCapital && (before.trim() === "" || endsSentenceAt(before, before.length, knows))) consider(0);
  for (let i = 1; i < out.length; i++) {
    // A word start after a space that may be capitalised (cheap tests first), where the text
    // before ends a sentence.
    const c = out.charCodeAt(i);
    if (c < 65 || (c > 90 && c < 128) || !isSpace(out.charCodeAt(i - 1))) continue;
    if (endsSentenceAt(out, i, knows)) consider(i);
  }
  return out;
}
