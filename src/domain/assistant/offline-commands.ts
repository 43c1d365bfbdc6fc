/**
 * The plain-English commands the offline command model understands, parsed into tool calls.
 * Deterministic regular expressions, no language model: one command per clause.
 */

/** A tool call a command stands for. */
export interface CommandCall {
  tool: string;
  input: Record<string, unknown>;
}

/** What the offline model tells users it understands (one example per line). */
export const OFFLINE_COMMANDS = [
  "add a title 'Hello' at 2s for 3 seconds",
  "add <upload name or id> [after clip N | at 5s]",
  "trim clip N to 4 seconds | trim clip N from 1s to 5s",
  "move clip N to 10s | move clip N after clip M",
  "split clip N at 12s",
  "delete clip N",
  "crossfade all cuts | add a wipe between 1 and 2",
  "add captions from <subtitle upload>",
  "add [karaoke] captions from speech [of <upload>] | transcribe <upload> | make chapters from <upload>",
  "remove silences [longer than 1.5 seconds] [and the ums] [from clip N | on track T]",
  "remove the ums | cut the fillers [from clip N | on track T]",
  "cut [clip N] at scene changes",
  "make a 60 s vertical clip with captions [from <upload>] [about <topic>] | make 3 square clips",
  "reframe to 9:16 | make it vertical | make it square",
  "set music volume to 40% | duck the music under speech | fade out the music over 3s",
  "find chapters",
  "suggest b-roll",
  "generate an image of <description>",
  "animate <image upload or clip>",
  "render a draft",
  "undo",
  "show the composition | list uploads",
];

const NUM = String.raw`(\d+(?:\.\d+)?)`;
const SEC = String.raw`\s*(?:s|sec|secs|second|seconds)?`;

/** Words for spoken fillers: "fillers", "filler words", "ums", "uhs", "erms", "hesitations". */
const FILLER_WORD = String.raw`(?:filler(?:\s+(?:words?|sounds?))?s?|u+m+s?|u+h+s?|e+r+m*s?|hesitations?)`;
/** One or more filler words: "the ums and uhs", "ums, uhs and ers". */
const FILLER_LIST = String.raw`(?:the\s+|all\s+(?:the\s+)?)?${FILLER_WORD}(?:\s*(?:,|and|&|or)\s*(?:the\s+)?${FILLER_WORD})*`;
const SILENCE_WORD = String.raw`(?:silences?|silent\s+parts|pauses?|dead\s+air)`;
const REMOVE_VERB = String.raw`(?:remove|cut(?:\s+out)?|delete|drop|strip(?:\s+out)?|get\s+rid\s+of)`;
const TARGET = String.raw`(?:\s+(?:from|in|of|on)\s+(?:the\s+)?(?:(track)\s+)?(.+?))?`;

/** The clip or track a removal names (`track T`, else a clip reference), or nothing. */
function removalTarget(isTrack: string | undefined, target: string | undefined): Record<string, unknown> {
  if (!target) return {};
  return isTrack ? { track: target } : { clip: clipRef(target.replace(/\s+(?:clip|track)$/i, "")) };
}

const TRANSITION_WORDS: Record<string, string> = {
  crossfade: "fade",
  fade: "fade",
  dissolve: "dissolve",
  wipe: "wipeleft",
  slide: "slideleft",
  circle: "circleopen",
  zoom: "zoomin",
  radial: "radial",
  "fade to black": "fadeblack",
  "fade through black": "fadeblack",
  "fade to white": "fadewhite",
};

/** A clip reference as the tools take it: a number stays a number, anything else a string. */
function clipRef(word: string): string | number {
  const w = word
    .replace(/^(?:clip\s+|#)/i, "")
    .replace(/^the\s+/i, "")
    .trim();
  return /^\d+$/.test(w) ? Number(w) : w;
}

/**
 * Splits a message into clauses at commas, semicolons, full stops (a dot before a space or the end) and "then", never inside
 * quotes ('…' or "…").
 */
export function splitCommands(message: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < message.length; i++) {
    const ch = message[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      current += ch;
      continue;
    }
    if ((ch === "'" || ch === '"') && !/\w/.test(message[i - 1] ?? " ")) quote = ch;
    if (ch === "," || ch === ";" || (ch === "." && /^\s?$/.test(message[i + 1] ?? ""))) {
      parts.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts
    .flatMap((p) => p.split(/\s+(?:and\s+)?then\s+/i))
    .map((p) =>
      p
        .trim()
        .replace(/^(?:and|then|please|now)\s+/i, "")
        .replace(/\s+please$/i, "")
        .trim(),
    )
    .filter((p) => p.length > 0);
}

/**
 * Parses one clause into a tool call, or null when it is not a command the offline model knows.
 * Times are seconds.
 */
export function parseCommand(clause: string): CommandCall | null {
  const s = clause.trim().replace(/\s+/g, " ");
  let m: RegExpExecArray | null;

  m = new RegExp(
    String.raw`^(?:add|put|show|insert)\s+(?:a\s+|the\s+)?(?:title|text|caption)\s+(["'])(.+?)\1(?:\s+(?:at|from)\s+${NUM}${SEC})?(?:\s+for\s+${NUM}${SEC})?(?:\s+(?:at|on)\s+the\s+(top|bottom|center|centre))?$`,
    "i",
  ).exec(s);
  if (m) {
    const position = m[5]?.toLowerCase().replace("centre", "center");
    return {
      tool: "add_text",
      input: {
        text: m[2],
        start: m[3] ? Number(m[3]) : 0,
        duration: m[4] ? Number(m[4]) : 3,
        ...(position ? { position } : {}),
      },
    };
  }

  m =
    /^(?:add|put|make|burn in)\s+(?:the\s+)?(karaoke\s+)?(?:captions|subtitles)\s+(?:from|for)\s+(?:the\s+)?(?:speech|voice|dialogue|what is said)(?:\s+(?:of|in)\s+(?:the\s+)?(.+?))?(\s+as\s+karaoke)?$/i.exec(
      s,
    ) ??
    /^caption\s+(?:the\s+)?(karaoke\s+)?(?:speech|voice|dialogue)(?:\s+(?:of|in)\s+(?:the\s+)?(.+?))?(\s+as\s+karaoke)?$/i.exec(
      s,
    );
  if (m) {
    return {
      tool: "add_captions_from_speech",
      input: { ...(m[2] ? { upload: m[2] } : {}), ...(m[1] || m[3] ? { mode: "karaoke" } : {}) },
    };
  }
  m = new RegExp(
    String.raw`^(?:make|create|cut|build|give me)\s+(?:(a|an|one|two|three|four|five|\d+)\s+)?(?:${NUM}\s*-?\s*(?:s|sec|secs|second|seconds)\s+|(\d+)\s*-?\s*(?:min|mins|minute|minutes)\s+)?(?:(vertical|portrait|square|horizontal|landscape|widescreen|wide)\s+)?(?:short\s+)?(?:clips?|shorts?|reels?|highlights?)(?:\s+(?:from|of)\s+(?:the\s+)?(.+?))?(?:\s+(with|without|no)\s+(?:captions|subtitles))?(?:\s+about\s+(.+))?$`,
    "i",
  ).exec(s);
  if (m) {
    const counts: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5 };
    const count = m[1] ? (counts[m[1].toLowerCase()] ?? Number(m[1])) : undefined;
    const shape = m[4]?.toLowerCase();
    const aspectRatio =
      shape === "vertical" || shape === "portrait"
        ? "9:16"
        : shape === "square"
          ? "1:1"
          : shape
            ? "16:9"
            : undefined;
    return {
      tool: "auto_edit",
      input: {
        ...(count !== undefined ? { count } : {}),
        ...(m[2] ? { maxDuration: Number(m[2]) } : m[3] ? { maxDuration: 60 * Number(m[3]) } : {}),
        ...(aspectRatio ? { aspectRatio } : {}),
        ...(m[5] ? { upload: m[5] } : {}),
        ...(m[6] ? { captions: m[6].toLowerCase() === "with" } : {}),
        ...(m[7] ? { prompt: m[7] } : {}),
      },
    };
  }
  m = /^transcribe\s+(?:the\s+)?(?:speech\s+(?:of|in)\s+(?:the\s+)?)?(.+)$/i.exec(s);
  if (m) return { tool: "transcribe_speech", input: { upload: m[1] } };
  m =
    /^(?:make|find|detect|add)\s+(?:the\s+)?chapters?(?:\s+markers?)?\s+(?:from|for|of|in)\s+(?:the\s+)?(?:speech\s+(?:of|in)\s+(?:the\s+)?)?(.+)$/i.exec(
      s,
    );
  if (m) return { tool: "make_chapters", input: { upload: m[1] } };

  const LONGER = String.raw`(?:\s+(?:longer|more)\s+than\s+${NUM}${SEC})?`;
  m = new RegExp(
    String.raw`^(?:${REMOVE_VERB}|trim)\s+(?:the\s+|all\s+(?:the\s+)?)?${SILENCE_WORD}${LONGER}(\s+and\s+${FILLER_LIST})?${TARGET}${LONGER}$`,
    "i",
  ).exec(s);
  if (m) {
    const longerThan = m[1] ?? m[5];
    return {
      tool: "remove_silences",
      input: {
        ...(longerThan ? { longerThan: Number(longerThan) } : {}),
        ...(m[2] ? { fillers: true } : {}),
        ...removalTarget(m[3], m[4]),
      },
    };
  }
  m = new RegExp(
    String.raw`^${REMOVE_VERB}\s+${FILLER_LIST}(\s+and\s+(?:the\s+)?${SILENCE_WORD}${LONGER})?${TARGET}$`,
    "i",
  ).exec(s);
  if (m) {
    if (m[1]) {
      return {
        tool: "remove_silences",
        input: { ...(m[2] ? { longerThan: Number(m[2]) } : {}), fillers: true, ...removalTarget(m[3], m[4]) },
      };
    }
    return { tool: "remove_fillers", input: removalTarget(m[3], m[4]) };
  }
  m =
    /^(?:cut|split)(?:\s+(?:up\s+)?(?:clip\s+)?(.+?))?\s+(?:at|on|into)\s+(?:its\s+|the\s+)?(?:scene\s+(?:changes?|cuts?)|shot\s+(?:changes?|cuts?)|scenes|shots)$/i.exec(
      s,
    );
  if (m) return { tool: "cut_at_scene_changes", input: m[1] ? { clip: clipRef(m[1]) } : {} };

  m =
    /^(?:reframe|crop|convert|turn)\s+(?:it\s+|this\s+|the\s+(?:video|composition|edit|clip)\s+)?(?:to|for|as|into)\s+(?:an?\s+)?(9:16|1:1|16:9|vertical|portrait|square|landscape|horizontal|widescreen)(?:\s+(?:format|video|aspect(?:\s+ratio)?))?$/i.exec(
      s,
    ) ??
    /^make\s+(?:it|this|the\s+(?:video|composition|edit))\s+(?:an?\s+)?(9:16|1:1|16:9|vertical|portrait|square|landscape|horizontal|widescreen)(?:\s+(?:format|video|aspect(?:\s+ratio)?))?$/i.exec(
      s,
    );
  if (m) {
    const word = (m[1] as string).toLowerCase();
    const aspectRatio = /^(?:9:16|vertical|portrait)$/.test(word)
      ? "9:16"
      : /^(?:1:1|square)$/.test(word)
        ? "1:1"
        : "16:9";
    return { tool: "reframe", input: { aspectRatio } };
  }

  m = /^(?:add|put|burn in)\s+(?:the\s+)?(?:captions|subtitles)(?:\s+from\s+(?:the\s+)?(.+?))?$/i.exec(s);
  if (m)
    return {
      tool: "add_captions",
      input: m[1] && !/^(?:srt|vtt|subtitles?)$/i.test(m[1]) ? { upload: m[1] } : {},
    };

  m = /^(?:crossfade|cross-fade|dissolve)\s+(?:all\s+)?(?:the\s+)?cuts$/i.exec(s);
  if (m)
    return { tool: "add_transition", input: { all: true, type: /dissolve/i.test(s) ? "dissolve" : "fade" } };

  m = new RegExp(
    String.raw`^add\s+(?:a|an)\s+(.+?)(?:\s+transition)?\s+between\s+(?:clips?\s+)?(\S+)\s+and\s+(?:clip\s+)?(\S+)(?:\s+(?:of|for)\s+${NUM}${SEC})?$`,
    "i",
  ).exec(s);
  if (m) {
    const type = TRANSITION_WORDS[(m[1] as string).toLowerCase()];
    if (!type) return null;
    return {
      tool: "add_transition",
      input: {
        between: [clipRef(m[2] as string), clipRef(m[3] as string)],
        type,
        ...(m[4] ? { duration: Number(m[4]) } : {}),
      },
    };
  }

  m = new RegExp(String.raw`^trim\s+(?:clip\s+)?(.+?)\s+from\s+${NUM}${SEC}\s+to\s+${NUM}${SEC}$`, "i").exec(
    s,
  );
  if (m)
    return {
      tool: "trim_clip",
      input: { clip: clipRef(m[1] as string), in: Number(m[2]), out: Number(m[3]) },
    };
  m = new RegExp(String.raw`^trim\s+(?:clip\s+)?(.+?)\s+to\s+${NUM}${SEC}$`, "i").exec(s);
  if (m) return { tool: "trim_clip", input: { clip: clipRef(m[1] as string), duration: Number(m[2]) } };

  m = new RegExp(String.raw`^move\s+(?:clip\s+)?(.+?)\s+to\s+${NUM}${SEC}$`, "i").exec(s);
  if (m) return { tool: "move_clip", input: { clip: clipRef(m[1] as string), start: Number(m[2]) } };
  m = /^move\s+(?:clip\s+)?(.+?)\s+after\s+(?:clip\s+)?(.+)$/i.exec(s);
  if (m) {
    return {
      tool: "move_clip",
      input: {
        clip: clipRef((m[1] as string).replace(/\s+clip$/i, "")),
        after: clipRef((m[2] as string).replace(/\s+clip$/i, "")),
      },
    };
  }

  m = new RegExp(String.raw`^split\s+(?:clip\s+)?(.+?)\s+at\s+${NUM}${SEC}$`, "i").exec(s);
  if (m) return { tool: "split_clip", input: { clip: clipRef(m[1] as string), at: Number(m[2]) } };

  m = /^(?:delete|remove|cut)\s+clip\s+(.+)$/i.exec(s);
  if (m) return { tool: "delete_clip", input: { clip: clipRef(m[1] as string) } };

  m = new RegExp(
    String.raw`^(?:set|turn)\s+(?:the\s+)?(music|.+?)\s+volume\s+(?:to\s+)?${NUM}\s*(%)?$`,
    "i",
  ).exec(s);
  if (m) {
    const value = Number(m[2]);
    return { tool: "set_volume", input: { track: m[1], gain: m[3] || value > 4 ? value / 100 : value } };
  }
  m = /^duck\s+(?:the\s+)?(music|.+?)(?:\s+under\s+(?:the\s+)?(?:speech|voice|dialogue|talking))?$/i.exec(s);
  if (m) return { tool: "set_volume", input: { track: m[1], duckUnder: "speech" } };
  m = new RegExp(String.raw`^fade\s+(in|out)\s+(?:the\s+)?(music|.+?)(?:\s+over\s+${NUM}${SEC})?$`, "i").exec(
    s,
  );
  if (m) {
    const key = (m[1] as string).toLowerCase() === "in" ? "fadeIn" : "fadeOut";
    return { tool: "set_volume", input: { track: m[2], [key]: m[3] ? Number(m[3]) : 2 } };
  }
  m = /^(mute|unmute)\s+(?:the\s+)?(.+)$/i.exec(s);
  if (m)
    return { tool: "set_volume", input: { track: m[2], mute: (m[1] as string).toLowerCase() === "mute" } };

  if (/^(?:find|detect|add|mark)\s+(?:the\s+)?chapters?(?:\s+markers?)?$/i.test(s))
    return { tool: "detect_chapters", input: {} };
  if (/^suggest\s+(?:some\s+)?b[- ]?roll$/i.test(s)) return { tool: "suggest_broll", input: {} };

  m = /^(?:generate|create|make)\s+(?:an?\s+)?(?:image|picture|photo)\s+of\s+(.+)$/i.exec(s);
  if (m) return { tool: "generate_image", input: { prompt: m[1] } };
  m = /^animate\s+(?:the\s+)?(.+)$/i.exec(s);
  if (m)
    return {
      tool: "animate_image",
      input: { image: clipRef((m[1] as string).replace(/^(?:image|clip)\s+/i, "")) },
    };

  m =
    /^render(?:\s+(?:a|the))?(?:\s+(draft|preview|standard|final|high[- ]quality))?(?:\s+(?:version|cut|render))?$/i.exec(
      s,
    );
  if (m) {
    const q = (m[1] ?? "draft").toLowerCase();
    return {
      tool: "start_render",
      input: { quality: q === "preview" ? "draft" : q === "final" || q.startsWith("high") ? "high" : q },
    };
  }
  if (/^undo(?:\s+(?:that|the last (?:edit|change)))?$/i.test(s)) return { tool: "undo", input: {} };
  if (/^(?:show|get|read|describe)(?:\s+me)?\s+(?:the\s+)?(?:composition|timeline)$/i.test(s)) {
    return { tool: "get_composition", input: {} };
  }
  if (/^(?:list|show)\s+(?:the\s+|my\s+)?uploads$/i.test(s)) return { tool: "list_uploads", input: {} };

  m = new RegExp(
    String.raw`^(?:add|put|insert|place)\s+(?:the\s+)?(.+?)(?:\s+clip)?(?:\s+after\s+(?:the\s+)?(?:clip\s+)?(.+?)(?:\s+clip)?|\s+at\s+${NUM}${SEC}|\s+at\s+the\s+end)?$`,
    "i",
  ).exec(s);
  if (m) {
    return {
      tool: "add_clip",
      input: {
        upload: m[1],
        ...(m[2] ? { after: clipRef(m[2]) } : {}),
        ...(m[3] ? { start: Number(m[3]) } : {}),
      },
    };
  }
  return null;
}
