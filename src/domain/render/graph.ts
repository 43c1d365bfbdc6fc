/**
 * A tiny builder for one ffmpeg `-filter_complex` graph plus the input arguments it reads.
 * Labels are generated (`v0`, `a3`, …) so that branches never collide. Filters that work for
 * one clip are named instances `filter@tag` (ffmpeg prefixes their log lines with
 * `[xfade@tag @ 0x…]`), so that an ffmpeg failure can be traced back to the clip: `clipTags`
 * maps each tag back to its clip id.
 */
export class FilterGraph {
  /** Argument groups of each input, in input-index order (e.g. `["-ss", "1", "-t", "2", "-i", "a.mp4"]`). */
  readonly inputs: string[][] = [];
  /** Filter chains, joined with `;`. */
  readonly chains: string[] = [];
  /** Filter instance tag → clip id (see {@link FilterGraph.tagOf}). */
  readonly clipTags = new Map<string, string>();
  readonly #tagOfClip = new Map<string, string>();
  #counter = 0;

  /**
   * The instance-name tag of a clip's filters: the clip id itself when it is a plain
   * identifier (`[A-Za-z0-9_-]`, at most 64 characters), else `~1`, `~2`, … (`~` never occurs in
   * a plain id, so tags never collide).
   */
  tagOf(clipId: string): string {
    let tag = this.#tagOfClip.get(clipId);
    if (tag === undefined) {
      tag = /^[A-Za-z0-9_-]{1,64}$/.test(clipId) ? clipId : `~${this.#tagOfClip.size + 1}`;
      this.#tagOfClip.set(clipId, tag);
      this.clipTags.set(tag, clipId);
    }
    return tag;
  }

  /** Adds an input and returns its index (`[index:v]`, `[index:a]`). */
  addInput(args: string[]): number {
    this.inputs.push(args);
    return this.inputs.length - 1;
  }

  /** A fresh label such as `v12` (no brackets). */
  label(prefix: string): string {
    this.#counter += 1;
    return `${prefix}${this.#counter}`;
  }

  /**
   * Appends `[in1][in2]f1,f2[out]` and returns `out`. `inputs` may be empty for a source
   * filter (e.g. `color=…`); `filters` must not be empty (use `null`/`anull` to relabel).
   * With `clipId`, every filter of the chain is named for that clip (`scale@m3=…`).
   */
  chain(inputs: readonly string[], filters: readonly string[], prefix = "s", clipId?: string): string {
    const out = this.label(prefix);
    const body = clipId === undefined ? filters : filters.map((f) => nameFilters(f, this.tagOf(clipId)));
    this.chains.push(`${inputs.map((l) => `[${l}]`).join("")}${body.join(",")}[${out}]`);
    return out;
  }

  /**
   * Appends a filter with several outputs, `[in]filter[out1][out2]…`, and returns the `count`
   * output labels (`split=3`, `extractplanes=y+u+v`). With `clipId` the filter is named for
   * that clip, as in {@link FilterGraph.chain}.
   */
  fanOut(input: string, filter: string, count: number, prefix: string, clipId?: string): string[] {
    const outs = Array.from({ length: count }, () => this.label(prefix));
    const named = clipId === undefined ? filter : nameFilters(filter, this.tagOf(clipId));
    this.chains.push(`[${input}]${named}${outs.map((o) => `[${o}]`).join("")}`);
    return outs;
  }

  /** The whole graph text. */
  toString(): string {
    return this.chains.join(";\n");
  }
}

/**
 * Names every filter of a comma-separated filter list (`settb=AVTB,setpts=…`) as instance
 * `name@tag`. Commas inside single quotes or escaped with a backslash are not separators.
 */
export function nameFilters(filters: string, tag: string): string {
  const parts: string[] = [];
  let quoted = false;
  let from = 0;
  for (let i = 0; i < filters.length; i += 1) {
    const ch = filters[i];
    if (ch === "\\" && !quoted) i += 1;
    else if (ch === "'") quoted = !quoted;
    else if (ch === "," && !quoted) {
      parts.push(filters.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(filters.slice(from));
  return parts.map((f) => f.replace(/^([A-Za-z0-9_]+)(?=$|=)/, `$1@${tag}`)).join(",");
}

/** A graph's text without filter instance names (`xfade@m5=…` → `xfade=…`): for reading and comparing graphs. */
export function withoutFilterNames(graph: string): string {
  return graph.replace(/(^|[,;\]\n])([A-Za-z0-9_]+)@[^=,;[\]\s]+/g, "$1$2");
}

/** Formats seconds for ffmpeg options: fixed 6 decimals without trailing zeros. */
export function sec(value: number): string {
  const s = (Math.round(value * 1e6) / 1e6).toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}

/** Quotes a filter option value that contains `,` `:` or `'` for use inside a filtergraph. */
export function quote(value: string): string {
  return /[,:'\\[\];]/.test(value) ? `'${value.replace(/'/g, "'\\''")}'` : value;
}

/** ffmpeg colour for a `#rrggbb[aa]` string: `0xRRGGBB[@alpha]`. */
export function ffColor(hex: string, opacity = 1): string {
  const rgb = hex.slice(1, 7);
  const a = (hex.length >= 9 ? Number.parseInt(hex.slice(7, 9), 16) / 255 : 1) * opacity;
  return a >= 1 ? `0x${rgb}` : `0x${rgb}@${Math.round(a * 1000) / 1000}`;
}

/** Rounds to the nearest even integer ≥ 2 (yuv420 needs even sizes). */
export function even(value: number): number {
  return Math.max(2, Math.round(value / 2) * 2);
}
