/**
 * Spoken fillers: the hesitation sounds speakers put between words ("um", "uh", "erm"), per
 * language, which silence-and-filler removal cuts out of a recording. Only vocalised hesitations
 * are listed, never words that also carry meaning ("like", "you know", "so", Spanish "este",
 * French "ben"): cutting those would change what is said.
 *
 * A transcript word is compared after {@link fillerKey}: lower case, punctuation around it
 * dropped, runs of one letter shortened to one ("ummm" → "um", "hmm" → "hm"), so that every
 * spelling an engine writes for a drawn-out sound matches.
 */

/** The fillers of each language (ISO 639-1), as {@link fillerKey} writes them. */
export const FILLERS: Readonly<Record<string, readonly string[]>> = {
  // English: um, umm, uh, uhm, er, err, erm, ah, hm, hmm, mm, mhm.
  en: ["um", "uh", "uhm", "er", "erm", "ah", "hm", "m", "mhm"],
  // German: äh, ähm, öh, öhm, hm, mh, eh, ehm.
  de: ["äh", "ähm", "öh", "öhm", "eh", "ehm", "hm", "m", "mh"],
  // French: euh, heu, hum, hm.
  fr: ["euh", "heu", "hum", "hm", "m"],
  // Spanish: eh, em, ehm, mm, hm.
  es: ["eh", "em", "ehm", "hm", "m"],
  // Dutch: eh, ehm, uh, uhm, hm.
  nl: ["eh", "ehm", "uh", "uhm", "hm", "m"],
  // Italian: eh, ehm, uhm, mm, hm.
  it: ["eh", "ehm", "uhm", "hm", "m"],
};

/** The languages with a filler list. */
export const FILLER_LANGUAGES = Object.keys(FILLERS);

/** A word as filler lists compare it: lower case, no punctuation around it, letter runs shortened to one. */
export function fillerKey(word: string): string {
  return word
    .toLowerCase()
    .replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "")
    .replace(/(\p{L})\1+/gu, "$1");
}

/**
 * Whether `word` is a filler in `language` (ISO 639-1; a region such as `en-GB` counts as its
 * language). A language without a list has no fillers.
 */
export function isFiller(word: string, language: string): boolean {
  const list = FILLERS[language.toLowerCase().split(/[-_]/)[0] ?? ""];
  return list?.includes(fillerKey(word)) === true;
}
