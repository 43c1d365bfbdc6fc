import { useState } from "react";
import type { Clip, Upload } from "../api/client";

/** Whether `u` can stand in for the media of `clip` (what the server's relink accepts). */
function fits(clip: Clip, u: Upload): boolean {
  const type = clip.asset.type;
  if (type === "caption") return u.type === "subtitle";
  if (type === "audio") return u.type === "audio" || (u.type === "video" && !!u.media?.hasAudio);
  return u.type === type;
}

/**
 * The notice of a clip whose upload was deleted, with what the user can do about it: relink
 * every clip of that upload to another upload of the same kind, or delete the clip.
 */
export function MissingMedia(props: {
  clip: Clip;
  /** The server's sentence ("cockatoo.mp4 at 0:06: its upload was deleted; …"). */
  message: string;
  uploads: readonly Upload[];
  busy: boolean;
  onRelink: (uploadId: string) => void;
  onDelete: () => void;
}) {
  const candidates = props.uploads.filter((u) => fits(props.clip, u));
  const [to, setTo] = useState("");
  const chosen = candidates.some((u) => u.id === to) ? to : (candidates[0]?.id ?? "");
  return (
    <div className="missing-media" role="alert">
      <p>{props.message}</p>
      {candidates.length > 0 ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen) props.onRelink(chosen);
          }}
        >
          <label>
            Relink to{" "}
            <select value={chosen} onChange={(e) => setTo(e.target.value)}>
              {candidates.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name}
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="submit" disabled={props.busy || !chosen}>
            Relink
          </button>{" "}
          <button type="button" className="secondary" onClick={props.onDelete} disabled={props.busy}>
            Delete clip
          </button>
        </form>
      ) : (
        <p>
          Upload the file again to relink it, or{" "}
          <button type="button" className="secondary" onClick={props.onDelete} disabled={props.busy}>
            delete the clip
          </button>
          .
        </p>
      )}
    </div>
  );
}
