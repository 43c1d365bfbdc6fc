import { useEffect, useRef, useState } from "react";
import { api, errorMessage } from "../api/client";

/** Seconds "Play from here" plays. */
export const PLAY_SECONDS = 6;
/** Wait after the last playhead move before asking for a frame, milliseconds. */
const DEBOUNCE_MS = 120;

/**
 * The preview: the frame at the playhead, rendered by the server's renderer from the uploads'
 * 640-px preview proxies where they are ready (`GET /api/compositions/{id}/frame`), and "Play from here", a draft render of the next few
 * seconds streamed into a `<video>` while the server renders it
 * (`GET /api/compositions/{id}/preview.mp4`, fragmented MP4: it plays from the first fragment).
 */
export function Preview(props: {
  compositionId: string;
  version: number;
  playhead: number;
  duration: number;
  /** Bumped by the space key: starts "Play from here". */
  playRequest: number;
  /** Told when a preview video starts (true) and when it is gone (false). */
  onPlaying: (playing: boolean) => void;
}) {
  const [frameUrl, setFrameUrl] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [clip, setClip] = useState<{ url: string; start: number } | null>(null);
  /** The video is loading: nothing played yet. */
  const [starting, setStarting] = useState(false);
  const [about, setAbout] = useState(false);
  const { compositionId, version, playhead, duration, onPlaying } = props;
  const lastUrl = useRef<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version is a new frame at the same time
  useEffect(() => {
    if (duration <= 0) {
      setFrameUrl(null);
      setMessage("The timeline is empty: add a clip to see a frame.");
      return;
    }
    const t = Math.min(Math.max(0, playhead), Math.max(0, duration - 0.001));
    let cancelled = false;
    const timer = setTimeout(async () => {
      const { data, error } = await api.GET("/api/compositions/{id}/frame", {
        params: { path: { id: compositionId }, query: { t: Math.round(t * 1000) / 1000, width: 640 } },
        parseAs: "blob",
      });
      if (cancelled) return;
      if (data) {
        const url = URL.createObjectURL(data as Blob);
        if (lastUrl.current) URL.revokeObjectURL(lastUrl.current);
        lastUrl.current = url;
        setFrameUrl(url);
        setMessage(null);
      } else {
        // No old frame stays up as if it were this one: the screen says why there is none.
        setFrameUrl(null);
        setMessage(`No frame at ${t.toFixed(2)} s: ${errorMessage(error, "the frame could not be drawn.")}`);
      }
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [compositionId, version, playhead, duration]);

  function playFromHere() {
    const start = Math.min(playhead, Math.max(0, duration - 0.1));
    const seconds = Math.min(PLAY_SECONDS, duration - start);
    const query = new URLSearchParams({
      from: start.toFixed(3),
      duration: seconds.toFixed(3),
      width: "640",
      // A new version is a new video (the browser must not reuse the old one).
      v: String(version),
    });
    setMessage(null);
    setStarting(true);
    setClip({ url: `/api/compositions/${compositionId}/preview.mp4?${query}`, start });
    onPlaying(true);
  }

  function stop() {
    setClip(null);
    setStarting(false);
    onPlaying(false);
  }

  /** The video failed: ask the server why (an error answers at once; a stream is cut off). */
  async function explainFailure(url: string) {
    stop();
    const abort = new AbortController();
    const res = await fetch(url, { credentials: "same-origin", signal: abort.signal }).catch(() => null);
    if (res && !res.ok) {
      const body = await res.json().catch(() => null);
      setMessage(errorMessage(body, "The preview video could not be rendered."));
    } else setMessage("The preview video could not be played.");
    abort.abort();
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request starts playback
  useEffect(() => {
    if (props.playRequest > 0) void playFromHere();
  }, [props.playRequest]);

  return (
    <section className="preview card" aria-labelledby="preview-h">
      <div className="hbox preview-head">
        <h2 id="preview-h">Preview</h2>
        <button
          type="button"
          className="info"
          aria-expanded={about}
          aria-controls="preview-about"
          aria-label="About the preview"
          title="About the preview"
          onClick={() => setAbout((a) => !a)}
        >
          i
        </button>
      </div>
      <p className="hint about" id="preview-about" hidden={!about}>
        Rendered by the real renderer from 640-px proxies: the frame and “Play from here” are drawn by the
        same ffmpeg plan as the final render (the video at draft quality, streamed while it renders), with
        each video decoded from its small preview copy once that is made (until then, and in the final render,
        from the original file).
      </p>
      <div className="screen">
        {clip ? (
          // biome-ignore lint/a11y/useMediaCaption: a draft preview render has no caption track
          <video
            src={clip.url}
            autoPlay
            controls
            aria-label={`Preview from ${clip.start.toFixed(1)} s`}
            onPlaying={() => setStarting(false)}
            onEnded={stop}
            onError={() => void explainFailure(clip.url)}
          />
        ) : frameUrl ? (
          <img src={frameUrl} alt={`Frame at ${playhead.toFixed(2)} s`} />
        ) : (
          <div className="empty" data-testid="no-frame">
            {message}
          </div>
        )}
      </div>
      <div className="hbox preview-actions">
        <button type="button" onClick={playFromHere} disabled={starting || duration <= 0}>
          {starting ? "Starting…" : `Play from here (${PLAY_SECONDS} s)`}
        </button>
        {clip && (
          <button type="button" className="secondary" onClick={stop}>
            Back to frame
          </button>
        )}
      </div>
      <p role="status" className="hint preview-status">
        {message ?? ""}
      </p>
    </section>
  );
}
