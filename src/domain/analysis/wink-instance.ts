/**
 * wink-nlp instances whose answers do not depend on what the process analysed before.
 *
 * wink-nlp adds every out-of-vocabulary word it meets to its lexicon (`features.lexeme` of
 * the instance's core model: `hash` from word to id, `list` from id to word) and keeps it for
 * the life of the instance. Its tokenizer consults that lexicon when it splits punctuation off a
 * piece (`isLexeme`, `_addTokenIfInCache`), so a word seen in an earlier request can change how
 * a later request's text is tokenized, and so its chapters, summary and B-roll. After each use
 * we therefore remove the words the use added from the lexicon's `hash`, which makes the next
 * text look up words exactly as in a fresh instance. The `list` and wink's per-word data keep
 * growing in step (wink addresses them by id, so they cannot be truncated); once more than
 * {@link MAX_UNKNOWN_WORDS} have accumulated the instance is replaced by a fresh one.
 */

import { LRUCache } from "lru-cache";
import model from "wink-eng-lite-web-model";
import winkNLP, { type WinkMethods } from "wink-nlp";

/** Out-of-vocabulary words an instance may accumulate before it is replaced (≈ 25 MB). */
export const MAX_UNKNOWN_WORDS = 200_000;

interface Lexicon {
  hash: Record<string, number>;
  list: string[];
  /** Ids below this are the model's own words. */
  intrinsicSize: number;
}

interface Instance {
  nlp: WinkMethods;
  lexicon: Lexicon;
  /** Memos of facts about the model's own words, by name (see {@link modelWordMemo}). */
  memos: Map<string, LRUCache<number | string, NonNullable<unknown>>>;
}

const instances = new Map<string, Instance>();
const instanceOf = new WeakMap<WinkMethods, Instance>();

function createInstance(pipe: string[]): Instance {
  let core: { features: { lexeme: Lexicon } } | undefined;
  // wink-nlp reads the core model through `model.core()` once per instance; keeping a
  // reference to what it returns gives us the instance's lexicon.
  const captured = {
    ...model,
    core: () => {
      core = (model.core as unknown as () => typeof core)();
      return core;
    },
  } as unknown as typeof model;
  const nlp = winkNLP(captured, pipe as Parameters<typeof winkNLP>[1]);
  if (!core) throw new Error("wink-nlp did not load its core model");
  const instance: Instance = { nlp, lexicon: core.features.lexeme, memos: new Map() };
  instanceOf.set(nlp, instance);
  return instance;
}

/**
 * Runs `use` with the process's wink-nlp instance for `pipe` (e.g. `["sbd", "pos"]`, loaded
 * once, ≈ 60 ms), then forgets the out-of-vocabulary words the use added, so the same text
 * always gives the same tokens. `use` must finish with the instance before returning (it is
 * synchronous); documents it read stay valid.
 *
 * @returns what `use` returns.
 */
export function withWink<T>(pipe: string[], use: (nlp: WinkMethods) => T): T {
  const key = pipe.join(",");
  let instance = instances.get(key);
  if (!instance) {
    instance = createInstance(pipe);
    instances.set(key, instance);
  }
  const { lexicon } = instance;
  const mark = lexicon.list.length;
  try {
    return use(instance.nlp);
  } finally {
    const { hash, list } = lexicon;
    for (let id = mark; id < list.length; id++) {
      const word = list[id] as string;
      if (hash[word] === id) delete hash[word];
    }
    if (list.length - lexicon.intrinsicSize > MAX_UNKNOWN_WORDS) instances.delete(key);
  }
}

/**
 * The ids below which wink's lexicon holds the model's own words for `nlp`'s instance, or
 * null for an instance not made here. Ids of such words are stable for the life of the
 * instance; ids of other words are assigned afresh in every use.
 */
export function intrinsicLexiconSize(nlp: WinkMethods): number | null {
  return instanceOf.get(nlp)?.lexicon.intrinsicSize ?? null;
}

/**
 * wink's id of `word` when it is one of the model's own words (exactly as written: the
 * lexicon is case-sensitive), else -1. Such ids are stable for the life of the instance.
 *
 * @throws Error when `nlp` is not an instance handed out by {@link withWink}.
 */
export function modelWordId(nlp: WinkMethods, word: string): number {
  const instance = instanceOf.get(nlp);
  if (!instance) throw new Error("modelWordId needs a wink instance from withWink");
  const { hash, intrinsicSize } = instance.lexicon;
  // Inherited keys ("constructor") are not numbers.
  const id: unknown = hash[word];
  return typeof id === "number" && id < intrinsicSize ? id : -1;
}

/**
 * A predicate: whether `word`, exactly as written (case-sensitive), is one of the model's own
 * words ({@link modelWordId} ≥ 0). The lexicon evidence of the truecasing in `truecase.ts`.
 *
 * @throws Error (when called) if `nlp` is not an instance handed out by {@link withWink}.
 */
export function modelKnows(nlp: WinkMethods): (word: string) => boolean {
  return (word) => modelWordId(nlp, word) >= 0;
}

/**
 * A bounded LRU memo (at most `max` entries, `lru-cache`) that lives with `nlp`'s instance,
 * for facts about the model's own words keyed by wink id (or a number derived from it), or
 * for facts about strings that depend on the model alone (key type `string`). Use numeric
 * keys only for ids below {@link intrinsicLexiconSize}: those never change meaning, so the
 * memo changes costs, never results. One memo per `name`.
 *
 * @throws Error when `nlp` is not an instance handed out by {@link withWink}.
 */
export function modelWordMemo<V extends NonNullable<unknown>, K extends number | string = number>(
  nlp: WinkMethods,
  name: string,
  max: number,
): LRUCache<K, V> {
  const instance = instanceOf.get(nlp);
  if (!instance) throw new Error("modelWordMemo needs a wink instance from withWink");
  let memo = instance.memos.get(name);
  if (!memo) {
    memo = new LRUCache<number | string, NonNullable<unknown>>({ max });
    instance.memos.set(name, memo);
  }
  return memo as unknown as LRUCache<K, V>;
}

/** Empties every {@link modelWordMemo} (for tests and benchmarks of the uncached cost). */
export function clearModelWordMemos(): void {
  for (const instance of instances.values()) for (const memo of instance.memos.values()) memo.clear();
}
