import QRCode from "qrcode";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage, type Schemas, type Upload } from "../api/client";
import { Layout, Status } from "../components/Layout";
import { TranscriptPanel } from "../components/TranscriptPanel";
import { UploadList, useUploadQueue } from "../components/UploadQueue";
import { formatBytes, formatDuration, formatTime } from "../format";
import { Link } from "../router";

/** How often the media grid refreshes, so phone uploads appear without reloading. */
const POLL_MS = 3000;

function PhoneCapture(props: { projectId: string }) {
  const [link, setLink] = useState<Schemas["CaptureTokenCreated"] | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function open() {
    const { data, error } = await api.POST("/api/v1/projects/{projectId}/capture-tokens", {
      params: { path: { projectId: props.projectId } },
    });
    if (!data) {
      setError(errorMessage(error));
      return;
    }
    setLink(data);
    setQr(await QRCode.toDataURL(data.url, { margin: 1, width: 240 }));
  }

  async function revoke() {
    if (!link) return;
    await api.DELETE("/api/v1/capture-tokens/{tokenId}", {
      params: { path: { tokenId: link.captureToken.id } },
    });
    setLink(null);
    setQr(null);
  }

  return (
    <section className="card" aria-labelledby="phone">
      <h2 id="phone">Phone capture</h2>
      {!link ? (
        <>
          <p>Record or pick files on a phone and send them straight into this project.</p>
          <button type="button" onClick={open}>
            Phone capture
          </button>
        </>
      ) : (
        <div className="capture-link">
          {qr && <img src={qr} width={240} height={240} alt="QR code of the phone capture link" />}
          <div className="stack">
            <p>Scan the code with the phone's camera, or open this link on the phone:</p>
            <a href={link.url} className="break" data-testid="capture-url">
              {link.url}
            </a>
            <p className="hint">
              Works until {formatTime(link.captureToken.expiresAt)} and only uploads into this project. The
              phone must reach this server's address (see HOST and PUBLIC_URL in the README).
            </p>
            <button type="button" className="danger" onClick={revoke}>
              Revoke link
            </button>
          </div>
        </div>
      )}
      <Status message={error} kind="error" />
    </section>
  );
}

function MediaCard(props: { upload: Upload; onPlay: () => void; onDelete: () => void }) {
  const u = props.upload;
  const playable = u.type === "video" || u.type === "audio";
  return (
    <li className="media card">
      {u.posterUrl ? (
        <img src={u.posterUrl} alt={`Poster of ${u.name}`} loading="lazy" />
      ) : u.type === "image" ? (
        <img src={u.url} alt={u.name} loading="lazy" />
      ) : (
        <div className="no-poster" aria-hidden="true">
          {u.type}
        </div>
      )}
      <div className="meta">
        <strong className="break">{u.name}</strong>
        <small>
          {u.type}
          {u.media?.duration != null && ` · ${formatDuration(u.media.duration)}`}
          {" · "}
          {formatBytes(u.size)}
        </small>
      </div>
      <div className="actions">
        {playable && (
          <button type="button" onClick={props.onPlay} aria-label={`Play ${u.name}`}>
            Play
          </button>
        )}
        <button type="button" className="danger" onClick={props.onDelete} aria-label={`Delete ${u.name}`}>
          Delete
        </button>
      </div>
    </li>
  );
}

/** One project: upload (drag and drop or picker), media grid, player, delete, phone capture. */
export function ProjectPage(props: { id: string }) {
  const [project, setProject] = useState<Schemas["Project"] | null>(null);
  const [uploads, setUploads] = useState<Upload[] | null>(null);
  const [playing, setPlaying] = useState<Upload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  const refresh = useCallback(async () => {
    const { data } = await api.GET("/api/v1/uploads", {
      params: { query: { projectId: props.id, limit: 100 } },
    });
    if (data) setUploads(data.data);
  }, [props.id]);
  const queue = useUploadQueue({ projectId: props.id, onUploaded: refresh });

  useEffect(() => {
    api
      .GET("/api/v1/projects/{projectId}", { params: { path: { projectId: props.id } } })
      .then(({ data, error }) => {
        if (data) setProject(data);
        else setError(errorMessage(error));
      });
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void refresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [props.id, refresh]);

  async function remove(u: Upload) {
    if (!window.confirm(`Delete “${u.name}”? This cannot be undone.`)) return;
    const { response, error } = await api.DELETE("/api/v1/uploads/{id}", { params: { path: { id: u.id } } });
    if (!response.ok) setError(errorMessage(error));
    if (playing?.id === u.id) setPlaying(null);
    await refresh();
  }

  return (
    <Layout title={project?.name ?? "Project"}>
      <p>
        <Link to="/console/projects">← All projects</Link>
      </p>
      <Status message={error} kind="error" />
      <div className="grid-2">
        <section className="card" aria-labelledby="upload">
          <h2 id="upload">Upload</h2>
          <section
            className={`drop${dragging ? " over" : ""}`}
            aria-label="Drop files here"
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(e) => {
              e.preventDefault();
              setDragging(false);
              if (e.dataTransfer.files.length > 0) queue.add(e.dataTransfer.files);
            }}
          >
            <p>Drop video, audio, images, subtitles or fonts here (512 MB each at most), or</p>
            <label className="button">
              Choose files
              <input
                ref={picker}
                type="file"
                multiple
                className="visually-hidden"
                onChange={(e) => {
                  if (e.target.files) queue.add(e.target.files);
                  e.target.value = "";
                }}
              />
            </label>
          </section>
          <UploadList items={queue.items} retry={queue.retry} />
        </section>
        <PhoneCapture projectId={props.id} />
      </div>
      {playing && (
        <section className="card player" aria-labelledby="player">
          <h2 id="player">{playing.name}</h2>
          {playing.type === "video" ? (
            // biome-ignore lint/a11y/useMediaCaption: user uploads carry no caption track
            <video src={playing.url} controls preload="metadata" poster={playing.posterUrl ?? undefined} />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: user uploads carry no caption track
            <audio src={playing.url} controls preload="metadata" />
          )}
          <TranscriptPanel upload={playing} />
          <button type="button" className="secondary" onClick={() => setPlaying(null)}>
            Close player
          </button>
        </section>
      )}
      <section aria-labelledby="media">
        <h2 id="media">Media</h2>
        {uploads === null ? (
          <p>Loading…</p>
        ) : uploads.length === 0 ? (
          <p>Nothing uploaded yet.</p>
        ) : (
          <ul className="plain media-grid">
            {uploads.map((u) => (
              <MediaCard key={u.id} upload={u} onPlay={() => setPlaying(u)} onDelete={() => remove(u)} />
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}
