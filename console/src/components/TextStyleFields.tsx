import { BUNDLED_FAMILIES, positionOf, TEXT_POSITIONS, type TextPosition, type TextStyle } from "../tools";

/**
 * The style inputs of the Text and Captions tools and of a selected text or caption clip: font
 * (bundled families and the project's uploaded fonts), size, colour, position, bold, a box
 * behind the text and, for captions, the karaoke highlight colour. Uncontrolled: read back with
 * {@link styleFromForm}.
 */
export function TextStyleFields(props: {
  style: TextStyle;
  /** Families of the project's font uploads. */
  families: readonly string[];
  captions?: boolean;
}) {
  const { style } = props;
  const families = [...new Set([...BUNDLED_FAMILIES, ...props.families, style.family])];
  const position = positionOf(style) ?? "Centre";
  return (
    <fieldset className="style-fields">
      <legend>Style</legend>
      <label>
        Font
        <select name="style.family" defaultValue={style.family}>
          {families.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
      </label>
      <label>
        Size (px)
        <input
          name="style.size"
          type="number"
          inputMode="numeric"
          min={1}
          max={1000}
          step={1}
          defaultValue={style.size}
          required
        />
      </label>
      <label>
        Text colour
        <input name="style.color" type="color" defaultValue={style.color?.slice(0, 7) ?? "#ffffff"} />
      </label>
      <label>
        Position
        <select name="style.position" defaultValue={position}>
          {(Object.keys(TEXT_POSITIONS) as TextPosition[]).map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label className="check">
        <input name="style.bold" type="checkbox" defaultChecked={(style.weight ?? 400) >= 600} />
        Bold
      </label>
      <label className="check">
        <input name="style.box" type="checkbox" defaultChecked={!!style.background} />
        Box behind the text
      </label>
      {props.captions && (
        <label>
          Highlight colour (karaoke)
          <input
            name="style.highlightColor"
            type="color"
            defaultValue={style.highlightColor?.slice(0, 7) ?? "#ffd000"}
          />
        </label>
      )}
    </fieldset>
  );
}

/** The style the fields of {@link TextStyleFields} describe, starting from `base` (keeps what they do not show). */
export function styleFromForm(f: FormData, base: TextStyle, canvasHeight: number): TextStyle {
  const next: TextStyle = structuredClone(base);
  next.family = String(f.get("style.family") || base.family);
  const size = Number(f.get("style.size"));
  if (Number.isFinite(size) && size > 0) next.size = size;
  next.color = String(f.get("style.color") || base.color || "#ffffff");
  const position = TEXT_POSITIONS[String(f.get("style.position")) as TextPosition];
  if (position) Object.assign(next, position);
  next.weight = f.get("style.bold") ? 700 : 400;
  if (f.get("style.box")) {
    next.background = base.background ?? {
      color: "#1a1d23",
      padding: Math.max(2, Math.round(canvasHeight * 0.015)),
    };
  } else delete next.background;
  const highlight = f.get("style.highlightColor");
  if (highlight) next.highlightColor = String(highlight);
  return next;
}
