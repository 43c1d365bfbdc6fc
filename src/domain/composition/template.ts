import { type ErrorDetail, invalidRequest } from "../../errors.ts";
import { uploadIdOfKey } from "../../storage/keys.ts";

/**
 * Composition templates: `{{name}}` placeholders in the text of text clips, caption cue text,
 * media `src` URLs and colours, filled from a render's `merge` values (docs/composition.md,
 * Templates). A media `src` that is one whole placeholder takes an upload id (`upl_…`, then the
 * asset is that upload as if it had `uploadId`), a URL of this instance's file storage (a signed
 * URL of an upload: the same) or an https URL. Names are `[A-Za-z_][A-Za-z0-9_]*`; spaces inside the braces are allowed
 * (`{{ name }}`). Placeholders anywhere else (names, metadata, ids) are plain text.
 */

/** Regular expression source of a placeholder name (unanchored), e.g. `firstName`. */
export const PLACEHOLDER_NAME = "[A-Za-z_][A-Za-z0-9_]*";
/** Every placeholder in a string (global: reset `lastIndex` or use `matchAll`/`replace`). */
const PLACEHOLDER = new RegExp(`\\{\\{\\s*(${PLACEHOLDER_NAME})\\s*\\}\\}`, "g");

/**
 * JSON Schema pattern of a value that is one whole placeholder (`{{video}}`): what a `src` or a
 * colour may hold instead of a URL or `#rrggbb` while it is a template.
 */
export const WHOLE_PLACEHOLDER_PATTERN = `\\{\\{\\s*${PLACEHOLDER_NAME}\\s*\\}\\}`;
const WHOLE_PLACEHOLDER = new RegExp(`^${WHOLE_PLACEHOLDER_PATTERN}$`);

/** Merge values of a render: placeholder name → value (numbers are written as JSON writes them). */
export type MergeValues = Record<string, string | number>;

/** What a templatable string is: text is filled anywhere in it, `src` and colours become the value. */
type FieldKind = "text" | "src" | "color";

/** One templatable string of a composition, at a JSON Pointer relative to the composition. */
interface TemplateField {
  path: string;
  kind: FieldKind;
  value: string;
  set(value: string): void;
  /** The object holding the field (the asset, for a `src`). */
  owner: Obj;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Visits `obj[key]` when it is a string. */
function field(out: TemplateField[], obj: Obj, key: string, path: string, kind: FieldKind): void {
  const value = obj[key];
  if (typeof value !== "string") return;
  out.push({
    path: `${path}/${key}`,
    kind,
    value,
    owner: obj,
    set: (v) => {
      obj[key] = v;
    },
  });
}

function styleFields(out: TemplateField[], style: unknown, path: string): void {
  if (!isObj(style)) return;
  field(out, style, "color", path, "color");
  field(out, style, "highlightColor", path, "color");
  for (const part of ["stroke", "background"]) {
    const v = style[part];
    if (isObj(v)) field(out, v, "color", `${path}/${part}`, "color");
  }
}

/**
 * The templatable strings of a composition document (written or stored form). Tolerates any
 * shape: what is not where a composition has it is skipped (structure is validated later).
 */
function templateFields(doc: unknown): TemplateField[] {
  const out: TemplateField[] = [];
  if (!isObj(doc)) return out;
  if (isObj(doc.canvas)) field(out, doc.canvas, "background", "/canvas", "color");
  if (!Array.isArray(doc.tracks)) return out;
  doc.tracks.forEach((track, t) => {
    if (!isObj(track) || !Array.isArray(track.clips)) return;
    track.clips.forEach((clip, c) => {
      if (!isObj(clip) || !isObj(clip.asset)) return;
      const asset = clip.asset;
      const path = `/tracks/${t}/clips/${c}/asset`;
      switch (asset.type) {
        case "video":
        case "image":
        case "audio":
          field(out, asset, "src", path, "src");
          break;
        case "color":
          field(out, asset, "color", path, "color");
          break;
        case "text":
          field(out, asset, "text", path, "text");
          styleFields(out, asset.style, `${path}/style`);
          break;
        case "caption": {
          styleFields(out, asset.style, `${path}/style`);
          const cues = isObj(asset.source) ? asset.source.cues : undefined;
          if (Array.isArray(cues)) {
            cues.forEach((cue, i) => {
              if (isObj(cue)) field(out, cue, "text", `${path}/source/cues/${i}`, "text");
            });
          }
          break;
        }
      }
    });
  });
  return out;
}

/**
 * The placeholders a composition uses, each with the JSON Pointers (relative to the
 * composition) of the fields it appears in, in document order.
 */
export function templatePlaceholders(doc: unknown): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const f of templateFields(doc)) {
    for (const m of f.value.matchAll(PLACEHOLDER)) {
      const name = m[1] as string;
      const paths = found.get(name) ?? [];
      if (!paths.includes(f.path)) paths.push(f.path);
      found.set(name, paths);
    }
  }
  return found;
}

const where = (paths: string[], prefix: string) =>
  paths
    .slice(0, 3)
    .map((p) => prefix + p)
    .join(", ") + (paths.length > 3 ? ` and ${paths.length - 3} more` : "");

/** An upload id as a merge value: `upl_` and its ULID. */
const UPLOAD_ID = /^upl_[A-Za-z0-9]{10,40}$/;
const HEX_COLOUR = /^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/;

/**
 * The merge values that are URLs of this instance's file storage, each with the key it names
 * (see `BlobStore.keyOfUrl`): what {@link fillTemplate} needs to resolve them to their uploads.
 * @param keyOfUrl - the storage key a URL names, or null when it is not one of this instance's.
 */
export async function ownStorageUrls(
  merge: MergeValues | undefined,
  keyOfUrl: ((url: string) => Promise<string | null>) | undefined,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (!keyOfUrl) return found;
  for (const value of Object.values(merge ?? {})) {
    if (typeof value !== "string" || !/^https?:\/\//.test(value) || found.has(value)) continue;
    const key = await keyOfUrl(value);
    if (key) found.set(value, key);
  }
  return found;
}

/**
 * The value of a whole-placeholder media `src` checked: the upload it names (an upload id, or a
 * URL of this instance's storage that is an upload's), the https URL, or what is wrong with it.
 */
function mediaValue(
  value: string,
  ownUrls: ReadonlyMap<string, string>,
): { uploadId: string } | { src: string } | { problem: string } {
  if (UPLOAD_ID.test(value)) return { uploadId: value };
  const key = ownUrls.get(value);
  if (key !== undefined) {
    const uploadId = uploadIdOfKey(key);
    return uploadId ? { uploadId } : { problem: "is a URL of this server, but not of an upload" };
  }
  if (value.startsWith("https://")) return { src: value };
  return { problem: "must be an upload id or an https URL" };
}

/**
 * Fills a composition's placeholders with `merge` and returns the filled copy (`doc` is not
 * changed). Each placeholder is replaced by its value in one pass (a value is never searched for
 * placeholders itself); a `src` or colour must be one whole placeholder's value afterwards, so a
 * value that is itself a placeholder is refused there.
 *
 * A media `src` that is one whole placeholder takes an upload id (`upl_…`) or a URL of this
 * instance's storage naming an upload (`ownUrls`): the asset then has that `uploadId` and no
 * `src`, so it is checked (the caller's, of a matching type) and rendered as any upload clip;
 * any other value must be an https URL. A colour that is one whole placeholder takes `#rrggbb`
 * or `#rrggbbaa`. A value refused there is named by its merge field (`/merge/<name>`).
 *
 * Without `merge`, a composition with placeholders cannot be rendered: that is a 400 listing
 * them too (a template is rendered with its values).
 *
 * @param prefix - JSON Pointer of the composition in the request (`/composition`, or `` for a
 *   stored one), put before the paths of the details.
 * @param ownUrls - merge values that are URLs of this instance's storage → the key each names
 *   (see {@link ownStorageUrls}); default none.
 * @throws 400 `invalid_request` listing every placeholder without a value (at `/merge`, naming
 *   where it is used) and every merge name the composition does not use (at `/merge/<name>`);
 *   400 naming `/merge/<name>` for a media value that is neither an upload nor an https URL, or
 *   a colour value that is not a colour.
 */
export function fillTemplate<T>(
  doc: T,
  merge: MergeValues | undefined,
  prefix: string,
  ownUrls: ReadonlyMap<string, string> = new Map(),
): T {
  const used = templatePlaceholders(doc);
  const values = merge ?? {};
  const problems: ErrorDetail[] = [];
  for (const [name, paths] of used) {
    if (!Object.hasOwn(values, name)) {
      problems.push({
        path: "/merge",
        message: `no value for placeholder "${name}" (used at ${where(paths, prefix)})`,
      });
    }
  }
  for (const name of Object.keys(values)) {
    if (!used.has(name)) {
      problems.push({ path: `/merge/${name}`, message: `the composition has no placeholder "${name}"` });
    }
  }
  if (problems.length > 0) {
    throw invalidRequest(
      merge === undefined
        ? `The composition is a template: send merge values for ${[...used.keys()].map((n) => `"${n}"`).join(", ")}`
        : "The merge values do not match the composition's placeholders",
      problems,
    );
  }
  if (used.size === 0) return doc;
  const filled = structuredClone(doc);
  const leftOver: ErrorDetail[] = [];
  const badValues = new Map<string, ErrorDetail>();
  for (const f of templateFields(filled)) {
    const whole = WHOLE_PLACEHOLDER.exec(f.value) ? placeholderName(f.value) : null;
    const value = f.value.replace(PLACEHOLDER, (_all, name: string) => String(values[name]));
    f.set(value);
    if (f.kind !== "text" && value !== f.value && WHOLE_PLACEHOLDER.test(value)) {
      leftOver.push({ path: prefix + f.path, message: `is still a placeholder after merging ("${value}")` });
      continue;
    }
    if (whole === null) continue;
    if (f.kind === "src") {
      const media = mediaValue(value, ownUrls);
      if ("uploadId" in media) {
        delete f.owner.src;
        f.owner.uploadId = media.uploadId;
      } else if ("problem" in media) {
        badValues.set(whole, { path: `/merge/${whole}`, message: media.problem });
      }
    } else if (f.kind === "color" && !HEX_COLOUR.test(value)) {
      badValues.set(whole, { path: `/merge/${whole}`, message: "must be a colour: #rrggbb or #rrggbbaa" });
    }
  }
  if (leftOver.length > 0) throw invalidRequest("A merge value is itself a placeholder", leftOver);
  if (badValues.size > 0) {
    const [first] = badValues.values();
    throw invalidRequest(`The merge value of "${first?.path.slice("/merge/".length)}" ${first?.message}`, [
      ...badValues.values(),
    ]);
  }
  return filled;
}

/** The name of the one placeholder `value` is (call only when it is one whole placeholder). */
function placeholderName(value: string): string {
  return [...value.matchAll(PLACEHOLDER)][0]?.[1] ?? "";
}
