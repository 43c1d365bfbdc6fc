/**
 * Deterministic talk-show-like transcript generator for latency measurements: a fixed
 * seed gives the same segments on every machine, with topic blocks (so chapters exist),
 * speaker turns, short pauses and numbers. No I/O, no clock.
 */
import type { Segment } from "../../src/domain/analysis/index.ts";

/** mulberry32: a tiny seeded PRNG so the generated text is reproducible. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Topic {
  nouns: string[];
  names: string[];
  verbs: string[];
  adjectives: string[];
}

const TOPICS: Topic[] = [
  {
    nouns: ["espresso", "grinder", "bean", "roast", "milk", "cup", "barista", "kettle", "filter", "crema"],
    names: ["Ethiopia", "Colombia", "Brazil", "Italy"],
    verbs: ["brew", "grind", "pour", "taste", "roast"],
    adjectives: ["fresh", "dark", "bitter", "smooth"],
  },
  {
    nouns: [
      "camera",
      "lens",
      "tripod",
      "sensor",
      "aperture",
      "shutter",
      "battery",
      "drone",
      "frame",
      "gimbal",
    ],
    names: ["Sony", "Canon", "Nikon", "Berlin"],
    verbs: ["shoot", "film", "zoom", "frame", "focus"],
    adjectives: ["wide", "sharp", "blurry", "bright"],
  },
  {
    nouns: ["mountain", "trail", "tent", "river", "glacier", "backpack", "boots", "summit", "valley", "map"],
    names: ["Alps", "Patagonia", "Nepal", "Iceland"],
    verbs: ["hike", "climb", "camp", "cross", "explore"],
    adjectives: ["steep", "remote", "cold", "rocky"],
  },
  {
    nouns: [
      "budget",
      "invoice",
      "salary",
      "tax",
      "loan",
      "savings",
      "spreadsheet",
      "bank",
      "rent",
      "pension",
    ],
    names: ["Excel", "London", "Fidelity", "Vanguard"],
    verbs: ["save", "invest", "spend", "borrow", "pay"],
    adjectives: ["monthly", "expensive", "cheap", "fixed"],
  },
  {
    nouns: ["garden", "tomato", "seed", "soil", "compost", "greenhouse", "shovel", "flower", "root", "hose"],
    names: ["Kew", "Devon", "Monty", "Provence"],
    verbs: ["plant", "water", "prune", "dig", "harvest"],
    adjectives: ["green", "wet", "organic", "sunny"],
  },
  {
    nouns: [
      "engine",
      "tire",
      "garage",
      "wheel",
      "brake",
      "fuel",
      "motorcycle",
      "highway",
      "helmet",
      "mechanic",
    ],
    names: ["Ducati", "Porsche", "Detroit", "Toyota"],
    verbs: ["drive", "repair", "race", "park", "tune"],
    adjectives: ["fast", "noisy", "electric", "rusty"],
  },
];

const FILLERS = ["so", "well", "you know", "honestly", "and then", "I mean", "actually", "right"];
const COMMON = ["people", "time", "thing", "way", "idea", "problem", "question", "reason", "moment"];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function makeSentence(rand: () => number, topic: Topic): string {
  const n1 = pick(rand, topic.nouns);
  const n2 = pick(rand, topic.nouns);
  const name = pick(rand, topic.names);
  const verb = pick(rand, topic.verbs);
  const adj = pick(rand, topic.adjectives);
  const num = 2 + Math.floor(rand() * 40);
  const templates = [
    `${pick(rand, FILLERS)}, when we ${verb} the ${adj} ${n1} you can really see the ${n2} change`,
    `I think the ${n1} from ${name} is the ${adj} one and most ${pick(rand, COMMON)} miss that`,
    `we spent ${num} days trying to ${verb} a ${n1} with an old ${n2}`,
    `the ${pick(rand, COMMON)} is that every ${n1} needs a ${adj} ${n2} before you ${verb} it`,
    `there are ${num} kinds of ${n1}, first the ${adj} ones, second the ${n2} ones, and third the ones from ${name}`,
    `it cost about ${num * 10} dollars, which is a lot for a ${n1}`,
    `and that is why I always ${verb} with a ${n2} in ${name}`,
    `have you ever tried to ${verb} a ${n1} without a ${n2}`,
  ];
  const s = pick(rand, templates);
  const end = s.startsWith("have you") ? "?" : ".";
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${end}`;
}

/** Options of {@link generateTranscript}. */
export interface GenerateOptions {
  /** Seed of the PRNG; same seed, same transcript. */
  seed?: number;
  /** Approximate number of words (default 28,000, about three hours of speech). */
  words?: number;
  /** Approximate number of segments (default 3,000). */
  segments?: number;
}

/**
 * Builds a timed transcript of about `words` words in about `segments` subtitle segments,
 * spoken at ~2.6 words per second with short pauses, in topic blocks of ~15 minutes.
 */
export function generateTranscript(opts: GenerateOptions = {}): { segments: Segment[]; duration: number } {
  const rand = createRandom(opts.seed ?? 42);
  const totalWords = opts.words ?? 28_000;
  const wordsPerSegment = totalWords / (opts.segments ?? 3_000);
  const topicBlockWords = 2_300;
  const words: string[] = [];
  let topicIndex = 0;
  while (words.length < totalWords) {
    if (words.length > (topicIndex + 1) * topicBlockWords) topicIndex++;
    const topic = TOPICS[topicIndex % TOPICS.length] as Topic;
    words.push(...makeSentence(rand, topic).split(" "));
  }
  const segments: Segment[] = [];
  let t = 0.4;
  let speaker = 0;
  for (let i = 0; i < words.length; ) {
    const n = Math.max(3, Math.round(wordsPerSegment * (0.6 + rand() * 0.8)));
    const chunk = words.slice(i, i + n);
    i += n;
    const len = chunk.length / 2.6;
    if (rand() < 0.03) speaker = 1 - speaker;
    segments.push({
      start: Math.round(t * 1000) / 1000,
      end: Math.round((t + len) * 1000) / 1000,
      text: chunk.join(" "),
      speaker: speaker === 0 ? "Host" : "Guest",
    });
    t += len + 0.05 + rand() * (rand() < 0.05 ? 1.8 : 0.35);
  }
  return { segments, duration: Math.ceil(t + 1) };
}
