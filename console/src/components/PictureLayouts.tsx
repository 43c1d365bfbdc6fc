import type { Clip } from "../api/client";
import { PICTURE_LAYOUTS, type PictureLayout } from "../tools";

/**
 * One-click boxes for the selected picture clip: full frame, or picture in picture in a corner
 * (a third of the canvas; put the clip on a track above the main picture).
 */
export function PictureLayouts(props: { clip: Clip; busy: boolean; onApply: (next: Clip) => void }) {
  const { clip } = props;
  if (clip.asset.type === "audio" || clip.asset.type === "caption" || clip.asset.type === "text") return null;
  return (
    <fieldset className="hbox picture-layouts">
      <legend>Layout</legend>
      {(Object.keys(PICTURE_LAYOUTS) as PictureLayout[]).map((name) => (
        <button
          key={name}
          type="button"
          className="secondary"
          disabled={props.busy}
          onClick={() => {
            const { transform: _old, ...rest } = clip;
            const box = PICTURE_LAYOUTS[name];
            props.onApply(box ? { ...rest, transform: { ...box } } : rest);
          }}
        >
          {name}
        </button>
      ))}
    </fieldset>
  );
}
