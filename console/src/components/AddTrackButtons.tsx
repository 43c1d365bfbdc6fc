import type { PatchOperation } from "../api/client";
import { addTrackOps } from "../tools";

/** "Add video track" and "Add audio track": an empty track on top of the others. */
export function AddTrackButtons(props: {
  busy: boolean;
  onAdd: (label: string, ops: PatchOperation[]) => void;
}) {
  return (
    <>
      {(["video", "audio"] as const).map((kind) => (
        <button
          key={kind}
          type="button"
          className="secondary"
          disabled={props.busy}
          onClick={() => props.onAdd(`Add ${kind} track`, addTrackOps(kind))}
        >
          Add {kind} track
        </button>
      ))}
    </>
  );
}
