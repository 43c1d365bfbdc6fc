import type { Clip } from "../api/client";
import { NumberField, type NumberSpec, readNumber as num } from "./NumberField";
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

/** The clip as the form describes it (empty fields remove optional properties). */
function clipFromForm(clip: Clip, f: FormData): Clip {
  const next: Clip = structuredClone(clip);
  next.start = num(f, "start") ?? clip.start;
  next.duration = num(f, "duration") ?? clip.duration;
  set(next, "name", String(f.get("name") ?? "").trim() || undefined);
  const media = clip.asset.type === "video" || clip.asset.type === "audio";
  if (media) {
    set(next, "trim", num(f, "trim"));
    set(next, "speed", num(f, "speed"));
    set(next, "volume", num(f, "volume"));
  }
  if (clip.asset.type !== "audio") {
    const fit = String(f.get("fit") ?? "");
    set(next, "fit", fit ? (fit as Clip["fit"]) : undefined);
    const transform: NonNullable<Clip["transform"]> = {};
    for (const field of TRANSFORM_FIELDS) set(transform, field.key, num(f, field.name));
    set(next, "transform", Object.keys(transform).length > 0 ? transform : undefined);
    set(next, "transition", transitionFromForm(f));
  }
  if (next.asset.type === "text" || next.asset.type === "caption") {
    const style = next.asset.style;
    if (next.asset.type === "text") next.asset.text = String(f.get("text") ?? "");
    style.family = String(f.get("style.family") || style.family);
    style.size = num(f, "style.size") ?? style.size;
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
  onApply: (next: Clip) => void;
  onDelete: () => void;
  onSplit: () => void;
}) {
  const { clip } = props;
  const media = clip.asset.type === "video" || clip.asset.type === "audio";
  const visual = clip.asset.type !== "audio";
  const styled = clip.asset.type === "text" || clip.asset.type === "caption" ? clip.asset : null;
  return (
    <PropertiesForm
      label="Clip properties"
      key={`${clip.id}@${props.version}`}
      onApply={(f) => props.onApply(clipFromForm(clip, f))}
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
        <NumberField label="Start (s)" name="start" value={clip.start} min={0} />
        <NumberField label="Duration (s)" name="duration" value={clip.duration} min={0.01} />
        {media && <NumberField label="Trim in (s)" name="trim" value={clip.trim} min={0} />}
        {media && <NumberField label="Speed" name="speed" value={clip.speed} min={0.25} max={4} />}
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
            <TransitionFields transition={clip.transition} optional durationLabel="Transition (s)" />
          </fieldset>
        </>
      )}
    </PropertiesForm>
  );
}
