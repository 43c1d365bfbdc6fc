import type { Clip } from "../api/client";
import { PropertiesForm } from "./PropertiesForm";
import { styleFromForm, TextStyleFields } from "./TextStyleFields";

/**
 * The style of the selected text or caption clip (position, bold, box, karaoke), beside its clip
 * properties; applying sends the changed fields as one patch.
 */
export function TextStyleProperties(props: {
  clip: Clip;
  version: number;
  canvasHeight: number;
  families: readonly string[];
  onApply: (next: Clip) => void;
}) {
  const { clip } = props;
  const asset = clip.asset;
  if (asset.type !== "text" && asset.type !== "caption") return null;
  return (
    <PropertiesForm
      label={asset.type === "caption" ? "Caption style" : "Text style"}
      key={`${clip.id}@${props.version}`}
      actions={null}
      onApply={(f) => {
        const next = structuredClone(clip);
        if (next.asset.type !== "text" && next.asset.type !== "caption") return;
        next.asset.style = styleFromForm(f, asset.style, props.canvasHeight);
        if (next.asset.type === "caption") next.asset.mode = f.get("mode") ? "karaoke" : "static";
        props.onApply(next);
      }}
    >
      <TextStyleFields style={asset.style} families={props.families} captions={asset.type === "caption"} />
      {asset.type === "caption" && (
        <label className="check">
          <input name="mode" type="checkbox" defaultChecked={asset.mode === "karaoke"} />
          Karaoke (light up each word as it is spoken)
        </label>
      )}
    </PropertiesForm>
  );
}
