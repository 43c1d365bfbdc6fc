import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/** Prefixes of Cutroom's resource IDs (docs/conventions.md, Ids). */
export type IdPrefix =
  | "usr"
  | "key"
  | "prj"
  | "upl"
  | "cmp"
  | "rnd"
  | "ses"
  | "run"
  | "msg"
  | "edt"
  | "gen"
  | "trn"
  | "req"
  | "trk"
  | "clp"
  | "mrk"
  | "cns"
  | "cpt"
  | "pwt"
  | "whk"
  | "dlv"
  | "evt"
  | "rsg"
  | "ver"
  | "aed";

const randomPool = Buffer.allocUnsafe(4096);
let randomPos = randomPool.length;

/**
 * ULID's PRNG contract: a uniform number in [0, 1). Bytes come from the OS CSPRNG, drawn
 * 4 KiB at a time instead of one `getRandomValues` call per character (ulid's default).
 */
function pooledRandom(): number {
  if (randomPos >= randomPool.length) {
    randomFillSync(randomPool);
    randomPos = 0;
  }
  return (randomPool[randomPos++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * Creates an opaque, time-sortable ID: `<prefix>_` + a 26-character ULID
 * (48-bit millisecond time + 80 random bits, Crockford base32; github.com/ulid/spec).
 * Within one process IDs are strictly increasing, so they sort by creation time.
 *
 * @param prefix - resource type, e.g. `"prj"`.
 * @param now - creation time in ms since the epoch (injectable for tests).
 * @returns e.g. `prj_01JD3Q5V0M8YB6Y2J4T6Z9KX1C`.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${nextUlid(now)}`;
}
