/**
 * Renders one personalised file per row of a CSV from a template composition:
 *
 *   CUTROOM_KEY=<write key> node scripts/render-csv.ts people.csv cmp_…          # a stored template
 *   CUTROOM_KEY=<write key> node scripts/render-csv.ts people.csv template.json  # an inline one
 *
 * The CSV's header row names the template's placeholders (`firstName,brand,video`); each row is
 * one render with those values as `merge` (docs/composition.md, Templates). Renders are started
 * with an Idempotency-Key of the file and row, so a run that is interrupted and repeated starts
 * only the renders still missing. Prints the server it renders on, then one line per row: row
 * number, status and output URL, or for a row that did not render why, in one sentence
 * ("row 3: `video` must be an upload id or an https URL"). A media column may hold an upload id
 * (`upl_…`), a signed URL of an upload on that server, or an https URL. Exits 1 when any row failed.
 *
 * Environment: CUTROOM_URL (default http://127.0.0.1:3000), CUTROOM_KEY (required, write scope),
 * CSV_FORMAT (default mp4), CSV_PARALLEL (renders started before waiting, default 2: keep it at
 * most the server's RENDER_MAX_ACTIVE_PER_ACCOUNT).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parse } from "csv-parse/sync";

/** What one row ended as. */
export interface RowResult {
  /** 1-based data row (the header is not counted). */
  row: number;
  merge: Record<string, string>;
  renderId: string | null;
  status: string;
  url: string | null;
  error: string | null;
  /** The server's `error.details` of a refused row: each field and what is wrong with it. */
  details: { path: string; message: string }[];
}

/** Options of {@link renderCsv}. */
export interface RenderCsvOptions {
  base: string;
  key: string;
  /** CSV text with a header row. */
  csv: string;
  /** A stored template's id, or an inline template composition. */
  template: string | Record<string, unknown>;
  /** Output options of every render (default `{ format: "mp4" }`). */
  output?: Record<string, unknown>;
  /** Renders started before waiting for the oldest to end (default 2). */
  parallel?: number;
  /** Prefix of the rows' Idempotency-Keys (default: a hash of the CSV and the template). */
  keyPrefix?: string;
  /** Called as each row ends. */
  onRow?: (result: RowResult) => void;
}

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

interface RenderBody {
  id: string;
  status: string;
  output: { url: string } | null;
  error: { code: string; message: string } | null;
}

/** The error body of a refused request. */
interface ErrorBody {
  error?: { message: string; details?: { path: string; message: string }[] };
}

/**
 * `fetch`, naming the URL when there is no HTTP answer (a wrong CUTROOM_URL, a server that is
 * not running).
 * @throws an Error "Could not reach <url>: <cause>".
 */
async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : err;
    throw new Error(`Could not reach ${url}: ${cause}`, { cause: err });
  }
}

/**
 * Why the server refused a row, in one sentence: each CSV column it named (`/merge/<name>`:
 * "`video` must be an upload id or an https URL"), else its message and the first detail.
 */
function refusal(r: RowResult): string {
  const columns = r.details
    .filter((d) => d.path.startsWith("/merge/"))
    .map((d) => `\`${d.path.slice("/merge/".length)}\` ${d.message}`);
  if (columns.length > 0) return columns.join("; ");
  const [first] = r.details;
  if (!first) return r.error ?? "refused";
  const more = r.details.length > 1 ? `, and ${r.details.length - 1} more` : "";
  return `${r.error ?? "refused"} (${first.path || "/"}: ${first.message}${more})`;
}

/**
 * One printed line of a row: `row 2\tsucceeded\t<output URL>`, or for a row that did not render
 * `row 3: <why>` (the server's refusal, naming the CSV column when it can, or the render's error).
 */
export function describeRow(r: RowResult): string {
  if (r.status === "succeeded") return `row ${r.row}\t${r.status}\t${r.url ?? ""}`;
  if (r.status === "refused") return `row ${r.row}: ${refusal(r)}`;
  return `row ${r.row}: ${r.status}${r.error ? `: ${r.error}` : ""}`;
}

/**
 * Parses the CSV (csv-parse: quoted fields, embedded commas and newlines, a BOM) and renders
 * each row with its values as `merge`, at most `parallel` at a time, polling each at the
 * `Retry-After` the server asks for. A row the server refuses (e.g. a 400 naming a placeholder
 * without a value) ends as `status: "refused"` with the server's message; other rows go on.
 *
 * @returns one result per data row, in row order.
 * @throws when the CSV cannot be parsed, or a request fails without an HTTP answer.
 */
export async function renderCsv(options: RenderCsvOptions): Promise<RowResult[]> {
  const rows = parse(options.csv, { columns: true, skip_empty_lines: true, bom: true, trim: true }) as Record<
    string,
    string
  >[];
  const base = options.base.replace(/\/+$/, "");
  const headers = { authorization: `Bearer ${options.key}`, "content-type": "application/json" };
  const source =
    typeof options.template === "string"
      ? { compositionId: options.template }
      : { composition: options.template };
  const prefix =
    options.keyPrefix ??
    createHash("sha256")
      .update(options.csv)
      .update(JSON.stringify(options.template))
      .digest("hex")
      .slice(0, 16);

  const one = async (merge: Record<string, string>, row: number): Promise<RowResult> => {
    const started = await request(`${base}/api/render`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": `csv-${prefix}-${row}` },
      body: JSON.stringify({ ...source, merge, output: options.output ?? { format: "mp4" } }),
    });
    const body = (await started.json()) as RenderBody & ErrorBody;
    if (!started.ok) {
      return {
        row,
        merge,
        renderId: null,
        status: "refused",
        url: null,
        error: body.error?.message ?? `HTTP ${started.status}`,
        details: body.error?.details ?? [],
      };
    }
    let render: RenderBody = body;
    let wait = 1;
    while (!TERMINAL.has(render.status)) {
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      const res = await request(`${base}/api/render/${render.id}`, { headers });
      render = (await res.json()) as RenderBody;
      wait = Number(res.headers.get("retry-after") ?? 1) || 1;
    }
    return {
      row,
      merge,
      renderId: render.id,
      status: render.status,
      url: render.output?.url ?? null,
      error: render.error ? `${render.error.code}: ${render.error.message}` : null,
      details: [],
    };
  };

  const results: RowResult[] = new Array(rows.length);
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      const result = await one(rows[i] as Record<string, string>, i + 1);
      results[i] = result;
      options.onRow?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 2) }, worker));
  return results;
}

async function main(): Promise<void> {
  const [csvFile, template] = process.argv.slice(2);
  const key = process.env.CUTROOM_KEY ?? "";
  if (!csvFile || !template || !key) {
    console.error(
      "usage: CUTROOM_KEY=<write key> node scripts/render-csv.ts <file.csv> <cmp_id | template.json>",
    );
    process.exit(2);
  }
  const base = process.env.CUTROOM_URL ?? "http://127.0.0.1:3000";
  console.log(`Rendering on ${base}${process.env.CUTROOM_URL ? "" : " (CUTROOM_URL is not set)"}`);
  const results = await renderCsv({
    base,
    key,
    csv: await readFile(csvFile, "utf8"),
    template: template.endsWith(".json") ? JSON.parse(await readFile(template, "utf8")) : template,
    output: { format: process.env.CSV_FORMAT ?? "mp4" },
    parallel: Number(process.env.CSV_PARALLEL ?? 2),
    onRow: (r) => console.log(describeRow(r)),
  });
  if (results.some((r) => r.status !== "succeeded")) process.exit(1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
