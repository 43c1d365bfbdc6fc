import { formatTimecode, microseconds, parseTime } from "./timecode.ts";

/**
 * Reading the editor's form fields without the browser's number validation: any value the
 * editor itself wrote (a frame-snapped 5.964583, a transform of 0.123456789) is accepted as it
 * is, typed numbers and times are checked here, and a field that cannot be applied gets a
 * sentence saying why, shown next to it.
 */

/** The limits of a number field. */
export interface NumberLimits {
  min?: number;
  max?: number;
  /** Empty text cannot be applied (default: empty means "not set"). */
  required?: boolean;
}

/** What a form's fields read: by field name, the sentence of each field that cannot be applied. */
export type FieldErrors = ReadonlyMap<string, string>;

/**
 * Reads a number typed into a field: a decimal number (a comma works as the decimal point),
 * checked against `limits`. `original` (the value the field started with) comes back unchanged
 * when the text is the one the field showed, so an untouched field never changes a value by
 * rounding. Empty text is `undefined` (not set).
 */
export function readNumberText(
  text: string,
  limits: NumberLimits,
  original?: number,
): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const v = text.trim();
  if (v === "")
    return limits.required ? { ok: false, error: "Enter a number." } : { ok: true, value: undefined };
  if (original !== undefined && v === String(original)) return { ok: true, value: original };
  const n = /^[-+]?(\d+([.,]\d*)?|[.,]\d+)(e[-+]?\d+)?$/i.test(v) ? Number(v.replace(",", ".")) : Number.NaN;
  if (!Number.isFinite(n)) return { ok: false, error: `“${v}” is not a number.` };
  if (limits.min !== undefined && n < limits.min)
    return { ok: false, error: `Must be at least ${limits.min}.` };
  if (limits.max !== undefined && n > limits.max)
    return { ok: false, error: `Must be at most ${limits.max}.` };
  return { ok: true, value: n };
}

/**
 * Reads a time typed into a field (timecode `m:ss.ff`, frames `120f` or seconds; see
 * {@link parseTime}) on the frame grid of `fps`, at least `min` seconds. The text the field
 * showed for `original` gives `original` back unchanged. Empty text is `undefined`.
 */
export function readTimeText(
  text: string,
  fps: number,
  limits: NumberLimits,
  original?: number,
): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const v = text.trim();
  if (v === "")
    return limits.required
      ? { ok: false, error: "Enter a time: m:ss.ff (frames after the dot), frames like 120f, or seconds." }
      : { ok: true, value: undefined };
  if (original !== undefined && v === formatTimecode(original, fps)) return { ok: true, value: original };
  const read = parseTime(v, fps);
  if (!read.ok) return read;
  if (limits.min !== undefined && read.seconds < limits.min - 1e-6) {
    return {
      ok: false,
      error: `Must be at least ${formatTimecode(limits.min, fps)} (${microseconds(limits.min)} s).`,
    };
  }
  if (limits.max !== undefined && read.seconds > limits.max + 1e-6) {
    return {
      ok: false,
      error: `Must be at most ${formatTimecode(limits.max, fps)} (${microseconds(limits.max)} s).`,
    };
  }
  return { ok: true, value: read.seconds };
}

/**
 * A reader of one submitted form: `number` and `time` read a field (undefined when empty or
 * when it cannot be applied) and note the sentence of each field that cannot be applied in
 * `errors`, so that the form can refuse to apply and show them all at once.
 */
export function formReader(form: FormData, fps: number) {
  const errors = new Map<string, string>();
  const text = (name: string) => String(form.get(name) ?? "");
  return {
    errors: errors as FieldErrors,
    number(name: string, limits: NumberLimits = {}, original?: number): number | undefined {
      const read = readNumberText(text(name), limits, original);
      if (read.ok) return read.value;
      errors.set(name, read.error);
      return undefined;
    },
    time(name: string, limits: NumberLimits = {}, original?: number): number | undefined {
      const read = readTimeText(text(name), fps, limits, original);
      if (read.ok) return read.value;
      errors.set(name, read.error);
      return undefined;
    },
  };
}

/** A {@link formReader}. */
export type FormReader = ReturnType<typeof formReader>;

/**
 * The fields of clip `index` of track `track` that a refused write names, with the server's
 * sentence for each: a detail at `/tracks/t/clips/c/transition/duration` belongs to the field
 * named `transition.duration` (the clip panel names its fields by their path in the clip).
 * @param error - the error body of the answer (`{ error: { details: [{ path, message }] } }`);
 *   anything else gives no field
 */
export function refusedFields(error: unknown, track: number, index: number): FieldErrors {
  const details = (error as { error?: { details?: unknown } } | null)?.error?.details;
  const fields = new Map<string, string>();
  if (!Array.isArray(details)) return fields;
  const prefix = `/tracks/${track}/clips/${index}/`;
  for (const d of details as Array<{ path?: unknown; message?: unknown }>) {
    if (typeof d.path !== "string" || typeof d.message !== "string" || !d.path.startsWith(prefix)) continue;
    const name = d.path.slice(prefix.length).replaceAll("/", ".");
    const text = d.message.charAt(0).toUpperCase() + d.message.slice(1);
    if (name && !fields.has(name)) fields.set(name, text.endsWith(".") ? text : `${text}.`);
  }
  return fields;
}
