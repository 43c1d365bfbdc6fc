// Word error rate (NIST sclite's definition): (substitutions + deletions + insertions) / words
// of the reference, from the word-level Levenshtein alignment.

/** Lower-cased words without punctuation; `mr`/`mrs` spelled out as the LibriVox references do. */
export function normalizeWords(text: string): string[] {
  const spelled: Record<string, string> = { mr: "mister", mrs: "missus", dr: "doctor" };
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => spelled[w] ?? w);
}

/** Substitutions + deletions + insertions turning `ref` into `hyp`. */
export function wordErrors(ref: string[], hyp: string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const same = ref[i - 1] === hyp[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + same));
    }
    prev = row;
  }
  return prev[hyp.length] as number;
}
