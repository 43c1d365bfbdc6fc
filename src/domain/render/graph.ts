/**
 * A tiny builder for one ffmpeg `-filter_complex` graph plus the input arguments it reads.
 * Labels are generated (`v0`, `a3`, …) so that branches never collide.
 */
export class FilterGraph {
  /** Argument groups of each input, in input-index order (e.g. `["-ss", "1", "-t", "2", "-i", "a.mp4"]`). */
  readonly inputs: string[][] = [];
  /** Filter chains, joined with `;`. */
  readonly chains: string[] = [];
  #counter = 0;

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
   */
  chain(inputs: readonly string[], filters: readonly string[], prefix = "s"): string {
    const out = this.label(prefix);
    this.chains.push(`${inputs.map((l) => `[${l}]`).join("")}${filters.join(",")}[${out}]`);
    return out;
  }

  /** The whole graph text. */
  toString(): string {
    return this.chains.join(";\n");
  }
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
