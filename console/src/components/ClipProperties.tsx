import type { Clip } from "../api/client";
import { type FieldErrors, type FormReader, formReader } from "../field-values";
import { frameSeconds } from "../timecode";
import { NumberField, type NumberSpec, TimeField } from "./NumberField";
import { PropertiesForm } from "./PropertiesForm";
import { TransitionFields, transitionFromForm } from "./TransitionProperties";

const FITS = ["cover", "contain", "fill", "none"] as const;

type TransformKey = keyof NonNullable<Clip["transform"]>;

/** The transform's inputs (`transform.<key>`), in the order they show. */
const TRANSFORM_FIELDS: ReadonlyArray<NumberSpec & { key: TransformKey }> = [
  { key: "x", label: "Centre x (0–1)", name: "transform.x" },
  { key: "y", label: "Centre y (0–1)", name: "transform.y" },
  { key: "width", label: "Width (of canvas)", name: "transform.width", min: 0.01, max: 10 },
  { key: "height", label: "Height (of canvas)", name: "transform.height", min: 0.01, max: 10 },
  { key: "rotate", label: "Rotate (°)", name: "transform.rotate", min: -360, max: 360, step: 1 },
  { key: "opacity", label: "Opacity (0–1)", name: "transform.opacity", min: 0, max: 1 },
];

function set<T extends object, K extends keyof T>(o: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete o[key];
  else o[key] = value;
}

/**
 * The clip as the form describes it (empty fields remove optional properties), read by `read`
 * (which notes the fields that cannot be applied). Times are on the canvas frame grid (to the microsecond); a field
 * left as it was keeps its value exactly.
 */
function clipFromForm(clip: Clip, f: FormData, read: FormReader, fps: number): Clip {
  const next: Clip = structuredClone(clip);
  next.start = read.time("start", { min: 0, required: true }, clip.start) ?? clip.start;
  next.duration =
    read.time("duration", { min: frameSeconds(fps), required: true }, clip.duration) ?? clip.duration;
  set(next, "name", String(f.get("name") ?? "").trim() || undefined);
  const media = clip.asset.type === "video" || clip.asset.type === "audio";
  if (media) {
    set(next, "trim", read.time("trim", { min: 0 }, clip.trim));
    set(next, "speed", read.number("speed", { min: 0.25, max: 4 }, clip.speed));
    set(next, "volume", read.number("volume", { min: 0, max: 4 }, clip.volume));
  }
  if (clip.asset.type === "video") set(next, "freeze", f.get("freeze") === "on" ? true : undefined);
  if (clip.asset.type !== "audio") {
    const fit = String(f.get("fit") ?? "");
    set(next, "fit", fit ? (fit as Clip["fit"]) : undefined);
    const transform: NonNullable<Clip["transform"]> = {};
    for (const { key, name, min, max } of TRANSFORM_FIELDS) {
      set(transform, key, read.number(name, { min, max }, clip.transform?.[key]));
    }
    set(next, "transform", Object.keys(transform).length > 0 ? transform : undefined);
    set(next, "transition", transitionFromForm(f, read, clip.transition));
  }
  if (next.asset.type === "text" || next.asset.type === "caption") {
    const style = next.asset.style;
    if (next.asset.type === "text") next.asset.text = String(f.get("text") ?? "");
    style.family = String(f.get("style.family") || style.family);
    style.size = read.number("style.size", { min: 1 }, style.size) ?? style.size;
    set(style, "color", String(f.get("style.color") ?? "") || undefined);
  }
  return next;
}

/**
 * The selected clip's properties: timing, trim, speed, volume, fit, transform, text and style,
 * transition. Applying sends the changed fields as one patch (the caller adds `If-Match`).
 */
export function ClipProperties(props: {
  clip: Clip;
  version: number;
  /** The canvas frame rate: times show as timecode and round to its frames. */
  fps: number;
  onApply: (next: Clip) => void;
  onDelete: () => void;
  onSplit: () => void;
  /** The fields the server refused in the last edit of this clip, with its sentences. */
  refused?: FieldErrors;
}) {
  const { clip } = props;
  const media = clip.asset.type === "video" || clip.asset.type === "audio";
  const visual = clip.asset.type !== "audio";
  const styled = clip.asset.type === "text" || clip.asset.type === "caption" ? clip.asset : null;
  return (
    <PropertiesForm
      label="Clip properties"
      key={`${clip.id}@${props.version}`}
      refused={props.refused}
      onApply={(f): FieldErrors | undefined => {
        const read = formReader(f, props.fps);
        const next = clipFromForm(clip, f, read, props.fps);
        if (read.errors.size > 0) return read.errors;
        props.onApply(next);
      }}
      actions={
        <>
          <button type="button" className="secondary" onClick={props.onSplit}>
            Split at playhead
          </button>
          <button type="button" className="danger" onClick={props.onDelete}>
            Delete clip
          </button>
        </>
      }
    >
      <label>
        Name
        <input name="name" defaultValue={clip.name ?? ""} maxLength={200} />
      </label>
      <fieldset>
        <legend>Timing</legend>
        <p className="hint">Times: m:ss.ff (frames after the dot), frames like 120f, or seconds.</p>
        <TimeField label="Start" name="start" value={clip.start} fps={props.fps} />
        <TimeField label="Duration" name="duration" value={clip.duration} fps={props.fps} />
        {media && <TimeField label="Trim in" name="trim" value={clip.trim} fps={props.fps} />}
        {media && <NumberField label="Speed" name="speed" value={clip.speed} min={0.25} max={4} />}
        {clip.asset.type === "video" && (
          <label title="Hold the frame at the trim in for the whole clip, without sound">
            <input name="freeze" type="checkbox" defaultChecked={clip.freeze === true} /> Freeze frame
          </label>
        )}
      </fieldset>
      {media && (
        <fieldset>
          <legend>Sound</legend>
          <NumberField label="Volume" name="volume" value={clip.volume} min={0} max={4} />
        </fieldset>
      )}
      {styled && (
        <fieldset>
          <legend>Text and style</legend>
          {clip.asset.type === "text" && (
            <label>
              Text
              <textarea name="text" rows={2} defaultValue={clip.asset.text} />
            </label>
          )}
          <label>
            Font family
            <input name="style.family" defaultValue={styled.style.family} />
          </label>
          <NumberField label="Font size (px)" name="style.size" value={styled.style.size} min={1} step={1} />
          <label>
            Colour
            <input
              name="style.color"
              defaultValue={styled.style.color ?? ""}
              placeholder="#ffffff"
              pattern="#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?"
            />
          </label>
        </fieldset>
      )}
      {visual && (
        <>
          <fieldset>
            <legend>Picture</legend>
            <label>
              Fit
              <select name="fit" defaultValue={clip.fit ?? ""}>
                <option value="">Default (cover)</option>
                {FITS.map((f) => (
                  <option key={f}>{f}</option>
                ))}
              </select>
            </label>
            {TRANSFORM_FIELDS.map(({ key, ...spec }) => (
              <NumberField key={key} {...spec} value={clip.transform?.[key]} />
            ))}
          </fieldset>
          <fieldset>
            <legend>Transition in</legend>
            <TransitionFields
              transition={clip.transition}
              optional
              durationLabel="Transition length"
              fps={props.fps}
            />
          </fieldset>
        </>
      )}
    </PropertiesForm>
  );
}
