import { useState } from "react";
import type { Clip, Composition, PatchOperation, Upload } from "../api/client";
import { uploadFile } from "../api/upload";
import { clipLabel, timelineEnd } from "../edits";
import { formatDuration } from "../format";
import { type ClipDraft, captionStyleFor, onFrame, overlayClipOps } from "../tools";
import { isActive, useLatestTranscription } from "../transcription";
import { styleFromForm, TextStyleFields } from "./TextStyleFields";

type Source = "speech" | "file";

/** The clips of the timeline with speech to transcribe: video and audio clips from uploads. */
function spokenClips(c: Composition): Clip[] {
  return c.tracks
    .flatMap((t) => t.clips)
    .filter(
      (x) =>
        (x.asset.type === "video" || x.asset.type === "audio") && "uploadId" in x.asset && !!x.asset.uploadId,
    );
}

const uploadIdOf = (clip: Clip | undefined) =>
  clip && "uploadId" in clip.asset ? (clip.asset.uploadId ?? null) : null;

/**
 * The Captions tool: captions from the speech of a clip on the timeline (its upload's latest
 * transcription, started here when there is none; the caption clip takes the clip's start, trim,
 * speed and length, so that it stays in step) or from an SRT/WebVTT file (chosen from the
 * project's subtitle uploads or uploaded here; placed at the playhead until the end of the
 * timeline). Styled with the text style fields; karaoke lights up each word.
 */
export function CaptionsTool(props: {
  composition: Composition;
  projectId: string;
  playhead: number;
  uploads: Upload[];
  families: readonly string[];
  busy: boolean;
  onUploaded: (u: Upload) => void;
  onAdd: (label: string, ops: PatchOperation[]) => void;
}) {
  const c = props.composition;
  const clips = spokenClips(c);
  const subtitles = props.uploads.filter((u) => u.type === "subtitle");
  const [source, setSource] = useState<Source>(clips.length > 0 ? "speech" : "file");
  const [clipId, setClipId] = useState<string>(clips[0]?.id ?? "");
  const [subtitleId, setSubtitleId] = useState<string>(subtitles[0]?.id ?? "");
  const [note, setNote] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const clip = clips.find((x) => x.id === clipId) ?? clips[0];
  const uploadId = source === "speech" ? uploadIdOf(clip) : null;
  const { transcription, error, starting, start: transcribe } = useLatestTranscription(uploadId);
  const nameOf = (x: Clip) => clipLabel(x, props.uploads.find((u) => u.id === uploadIdOf(x))?.name);

  async function uploadSubtitle(file: File) {
    setSending(true);
    setNote(`Uploading ${file.name}…`);
    try {
      const u = await uploadFile(file, { projectId: props.projectId });
      if (u.type !== "subtitle") setNote(`${file.name} is not an SRT or WebVTT file (it is ${u.type}).`);
      else {
        setSubtitleId(u.id);
        setNote(`${u.name} uploaded.`);
      }
      props.onUploaded(u);
    } catch (err) {
      setNote((err as Error).message);
    } finally {
      setSending(false);
    }
  }

  const ready = source === "speech" ? transcription?.status === "succeeded" && !!clip : !!subtitleId;
  const style = captionStyleFor(c.canvas.height);
  return (
    <form
      className="stack tool"
      aria-label="Add captions"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready) return;
        const f = new FormData(e.currentTarget);
        const mode = f.get("mode") ? ("karaoke" as const) : ("static" as const);
        const captionStyle = styleFromForm(f, style, c.canvas.height);
        let draft: ClipDraft;
        let label: string;
        if (source === "speech" && clip && transcription) {
          label = `Add captions of ${nameOf(clip)}`;
          draft = {
            name: `Captions · ${nameOf(clip)}`,
            start: clip.start,
            duration: clip.duration,
            ...(clip.trim !== undefined ? { trim: clip.trim } : {}),
            ...(clip.speed !== undefined ? { speed: clip.speed } : {}),
            asset: {
              type: "caption",
              mode,
              style: captionStyle,
              source: { transcriptionId: transcription.id },
            },
          };
        } else {
          const sub = subtitles.find((u) => u.id === subtitleId);
          const start = onFrame(props.playhead, c.canvas.fps);
          label = `Add captions from ${sub?.name ?? "the subtitle file"}`;
          draft = {
            name: sub?.name ?? "Captions",
            start,
            duration: Math.max(1, Math.round((timelineEnd(c) - start) * 1e6) / 1e6),
            asset: { type: "caption", mode, style: captionStyle, source: { uploadId: subtitleId } },
          };
        }
        props.onAdd(label, overlayClipOps(c, draft, "Captions"));
      }}
    >
      <fieldset className="segmented">
        <legend>From</legend>
        <label className="check">
          <input
            type="radio"
            name="source"
            checked={source === "speech"}
            onChange={() => setSource("speech")}
            disabled={clips.length === 0}
          />
          Speech of a clip
        </label>
        <label className="check">
          <input type="radio" name="source" checked={source === "file"} onChange={() => setSource("file")} />
          Subtitle file (SRT/VTT)
        </label>
      </fieldset>
      {source === "speech" ? (
        <>
          <label>
            Clip
            <select value={clip?.id ?? ""} onChange={(e) => setClipId(e.target.value)}>
              {clips.map((x) => (
                <option key={x.id} value={x.id}>
                  {nameOf(x)} at {formatDuration(x.start)}
                </option>
              ))}
            </select>
          </label>
          <p className="hint" aria-live="polite">
            {transcription === undefined
              ? "Looking for its transcript…"
              : transcription === null
                ? "Not transcribed yet."
                : transcription.status === "succeeded"
                  ? `Transcript ready (${transcription.segments?.length ?? 0} segments).`
                  : `Transcription ${transcription.status}${transcription.error ? `: ${transcription.error.message}` : ""}.`}
          </p>
          {transcription?.status !== "succeeded" && (
            <button
              type="button"
              className="secondary"
              onClick={() => void transcribe()}
              disabled={starting || !uploadId || isActive(transcription)}
            >
              Transcribe {clip ? nameOf(clip) : ""}
            </button>
          )}
        </>
      ) : (
        <>
          <label>
            Subtitle file
            <select value={subtitleId} onChange={(e) => setSubtitleId(e.target.value)}>
              {subtitles.length === 0 && <option value="">None uploaded yet</option>}
              {subtitles.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Upload an SRT or VTT file
            <input
              type="file"
              accept=".srt,.vtt,text/vtt,application/x-subrip"
              disabled={sending}
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) void uploadSubtitle(file);
                e.target.value = "";
              }}
            />
          </label>
        </>
      )}
      <TextStyleFields style={style} families={props.families} captions />
      <label className="check">
        <input name="mode" type="checkbox" />
        Karaoke (light up each word as it is spoken)
      </label>
      <p className="hint" role="status">
        {error ?? note ?? ""}
      </p>
      <button type="submit" disabled={!ready || props.busy}>
        Add captions
      </button>
    </form>
  );
}
