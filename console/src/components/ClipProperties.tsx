import type { Clip } from "../api/client";

const FITS = ["cover", "contain", "fill", "none"] as const;
const TRANSITIONS = [
  "fade",
  "dissolve",
  "wipeleft",
  "wiperight",
  "wipeup",
  "wipedown",
  "slideleft",
  "slideright",
  "circleopen",
  "circleclose",
] as const;

const num = (f: FormData, name: string): number | undefined => {
  const v = String(f.get(name) ?? "").trim();
  return v === "" ? undefined : Number(v);
};

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
    for (const k of ["x", "y", "width", "height", "rotate", "opacity"] as const)
      set(transform, k, num(f, `transform.${k}`));
    set(next, "transform", Object.keys(transform).length > 0 ? transform : undefined);
    const type = String(f.get("transition.type") ?? "");
    set(
      next,
      "transition",
      type
        ? {
            type: type as NonNullable<Clip["transition"]>["type"],
            duration: num(f, "transition.duration") ?? 0.5,
          }
        : undefined,
    );
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

function Field(props: {
  label: string;
  name: string;
  value: number | undefined;
  step?: number;
  min?: number;
  max?: number;
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type="number"
        step={props.step ?? 0.01}
        min={props.min}
        max={props.max}
        defaultValue={props.value ?? ""}
      />
    </label>
  );
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
    <form
      className="properties stack"
      aria-label="Clip properties"
      key={`${clip.id}@${props.version}`}
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(clipFromForm(clip, new FormData(e.currentTarget)));
      }}
    >
      <label>
        Name
        <input name="name" defaultValue={clip.name ?? ""} maxLength={200} />
      </label>
      <fieldset>
        <legend>Timing</legend>
        <Field label="Start (s)" name="start" value={clip.start} min={0} />
        <Field label="Duration (s)" name="duration" value={clip.duration} min={0.01} />
        {media && <Field label="Trim in (s)" name="trim" value={clip.trim} min={0} />}
        {media && <Field label="Speed" name="speed" value={clip.speed} min={0.25} max={4} />}
      </fieldset>
      {media && (
        <fieldset>
          <legend>Sound</legend>
          <Field label="Volume" name="volume" value={clip.volume} min={0} max={4} />
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
          <Field label="Font size (px)" name="style.size" value={styled.style.size} min={1} step={1} />
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
            <Field label="Centre x (0–1)" name="transform.x" value={clip.transform?.x} />
            <Field label="Centre y (0–1)" name="transform.y" value={clip.transform?.y} />
            <Field
              label="Width (of canvas)"
              name="transform.width"
              value={clip.transform?.width}
              min={0.01}
              max={10}
            />
            <Field
              label="Height (of canvas)"
              name="transform.height"
              value={clip.transform?.height}
              min={0.01}
              max={10}
            />
            <Field
              label="Rotate (°)"
              name="transform.rotate"
              value={clip.transform?.rotate}
              min={-360}
              max={360}
              step={1}
            />
            <Field
              label="Opacity (0–1)"
              name="transform.opacity"
              value={clip.transform?.opacity}
              min={0}
              max={1}
            />
          </fieldset>
          <fieldset>
            <legend>Transition in</legend>
            <label>
              Type
              <select name="transition.type" defaultValue={clip.transition?.type ?? ""}>
                <option value="">None</option>
                {TRANSITIONS.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
            <Field
              label="Transition (s)"
              name="transition.duration"
              value={clip.transition?.duration}
              min={0.01}
              max={10}
            />
          </fieldset>
        </>
      )}
      <div className="hbox">
        <button type="submit">Apply</button>
        <button type="button" className="secondary" onClick={props.onSplit}>
          Split at playhead
        </button>
        <button type="button" className="danger" onClick={props.onDelete}>
          Delete clip
        </button>
      </div>
    </form>
  );
}
