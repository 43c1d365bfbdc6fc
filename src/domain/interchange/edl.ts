import { invalidRequest } from "../../errors.ts";
import { type TimecodeRate, timecodeRate, timecodeToFrames } from "./timecode.ts";

/** One event of a CMX 3600 EDL (for a dissolve or wipe, its incoming line). */
export interface EdlEvent {
  /** Event number as written ("012"). */
  number: string;
  reel: string;
  /** `* FROM CLIP NAME:` comment, else "". */
  clipName: string;
  /** Channels field: V, A, A2, AA, B, AA/V… */
  channels: string;
  /** Cut, dissolve (`D`) or wipe (`Wnnn`, code kept) from the event before. */
  edit:
    | { kind: "cut" }
    | { kind: "dissolve"; frames: number }
    | { kind: "wipe"; code: string; frames: number };
  /** Reel of the outgoing side of a dissolve or wipe (`BL` for black), else null. */
  fromReel: string | null;
  /** Frames of the source and of the record, `in` inclusive, `out` exclusive. */
  srcIn: number;
  srcOut: number;
  recIn: number;
  recOut: number;
  /** Source frames per second of its `M2` line, when it has one. */
  motionFps: number | null;
}

/** A `* LOC:` comment: a locator (marker) at a record time. */
export interface EdlLocator {
  /** Record frame. */
  frame: number;
  label: string;
  /** Colour word when it has one (RED, GREEN…), else "". */
  color: string;
  /** "line 12", for warnings. */
  line: string;
}

/** A parsed EDL: its title, whether it counts drop-frame, its events in order and its locators. */
export interface ParsedEdl {
  title: string;
  drop: boolean;
  events: EdlEvent[];
  locators: EdlLocator[];
}

const TC = "(\\d{2}:\\d{2}:\\d{2}[:;.,]\\d{2})";
const EVENT = new RegExp(
  `^(\\d{3,6})\\s+(\\S+)\\s+(\\S+)\\s+(C|D|W\\d{3}|K\\S*)(?:\\s+(\\d{1,4}))?\\s+${TC}\\s+${TC}\\s+${TC}\\s+${TC}\\s*$`,
);
const LOCATOR = new RegExp(`^\\*\\s*LOC:\\s*${TC}\\s*(.*)$`, "i");
/** Colour words of locators: Avid's and Resolve's (`ResolveColorBlue`). */
const COLOR = /^(RED|GREEN|BLUE|CYAN|MAGENTA|YELLOW|BLACK|WHITE|ORANGE|PURPLE|PINK|ResolveColor\w+)$/i;
const MOTION = new RegExp(`^M2\\s+(\\S+)\\s+(-?\\d+(?:\\.\\d+)?)\\s+${TC}\\s*$`);

/** A 400 naming the EDL's event (or line). */
export function edlError(where: string, message: string) {
  return invalidRequest(`${where}: ${message}`, [{ path: "/edl", message: `${where}: ${message}` }]);
}

/**
 * Parses a CMX 3600 EDL: `TITLE:`, `FCM:` (drop-frame or not; a `;` in the timecodes also
 * means drop-frame), event lines (cut `C`, dissolve `D nnn`, wipe `Wnnn nnn`), `M2` speed lines
 * `* FROM CLIP NAME:` comments and `* LOC:` locators. The two lines of a dissolve or wipe become one event (the
 * incoming one) with `fromReel` set. Timecodes are read at `fps`.
 *
 * @throws AppError 400 naming the event ("event 012: …") or line for anything malformed, a
 *   key (`K`) edit, or an out point before its in point.
 */
export function parseEdl(text: string, fps: number): ParsedEdl {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n|\r/);
  const drop =
    lines.some((l) => /^FCM:\s*DROP FRAME/i.test(l.trim())) || /\d{2}:\d{2}:\d{2};\d{2}/.test(text);
  const rate: TimecodeRate = timecodeRate(fps, drop);
  let title = "";
  const events: EdlEvent[] = [];
  const locators: EdlLocator[] = [];
  /** Outgoing lines of dissolves: event number → reel. */
  const outgoing = new Map<string, string>();
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (!line || /^FCM:/i.test(line)) return;
    const where = `line ${index + 1}`;
    const titled = /^TITLE:\s*(.*)$/i.exec(line);
    if (titled) {
      title = titled[1]?.trim() ?? "";
      return;
    }
    const locator = LOCATOR.exec(line);
    if (locator) {
      const [, time = "", rest = ""] = locator;
      const [first = "", ...words] = rest.trim().split(/\s+/);
      const colored = COLOR.test(first);
      locators.push({
        frame: timecodeToFrames(time, rate, where),
        color: colored ? first : "",
        label: (colored ? words.join(" ") : rest.trim()).trim(),
        line: where,
      });
      return;
    }
    if (line.startsWith("*")) {
      // FROM names the clip of a cut; of a dissolve or wipe, TO names the incoming clip.
      const named = /^\*\s*(FROM|TO) CLIP NAME:\s*(.+)$/i.exec(line);
      const last = events.at(-1);
      if (named?.[2] && last && !last.clipName) {
        const incoming = named[1]?.toUpperCase() === "TO";
        if (incoming === (last.edit.kind !== "cut")) last.clipName = named[2].trim();
      }
      return;
    }
    const motion = MOTION.exec(line);
    if (motion) {
      const last = events.at(-1);
      if (!last) throw edlError(where, "an M2 line before any event");
      last.motionFps = Number(motion[2]);
      return;
    }
    const m = EVENT.exec(line);
    if (!m) {
      if (/^\d{3,6}\s/.test(line)) throw edlError(`event ${line.split(/\s+/)[0]}`, `cannot read "${line}"`);
      return; // Other notes (e.g. "AUD  3") carry nothing Cutroom reads.
    }
    const [, number = "", reel = "", channels = "", code = "", length, ...tcs] = m;
    const at = `event ${number}`;
    const [srcIn, srcOut, recIn, recOut] = tcs.map((tc) => timecodeToFrames(tc, rate, at)) as [
      number,
      number,
      number,
      number,
    ];
    if (code.startsWith("K")) throw edlError(at, "key edits (K) are not supported");
    if (srcOut < srcIn || recOut < recIn) throw edlError(at, "an out point is before its in point");
    const frames = Number(length ?? 0);
    if (code === "C") {
      // The first line of a dissolve or wipe: a zero-length cut naming the outgoing reel.
      if (recIn === recOut) {
        outgoing.set(number, reel);
        return;
      }
      events.push({
        number,
        reel,
        clipName: "",
        channels,
        edit: { kind: "cut" },
        fromReel: null,
        srcIn,
        srcOut,
        recIn,
        recOut,
        motionFps: null,
      });
      return;
    }
    if (!length) throw edlError(at, `a ${code === "D" ? "dissolve" : "wipe"} needs its length in frames`);
    events.push({
      number,
      reel,
      clipName: "",
      channels,
      edit: code === "D" ? { kind: "dissolve", frames } : { kind: "wipe", code, frames },
      fromReel: outgoing.get(number) ?? null,
      srcIn,
      srcOut,
      recIn,
      recOut,
      motionFps: null,
    });
  });
  if (events.length === 0) throw edlError("EDL", "has no events");
  return { title, drop: rate.drop, events, locators };
}
