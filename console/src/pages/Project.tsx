import QRCode from "qrcode";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage, type PatchOperation, type Schemas, type Upload } from "../api/client";
import { patchComposition } from "../api/compositions";
import { AutoEdit } from "../components/AutoEdit";
import { CompositionList, editorPath, useCompositions } from "../components/CompositionList";
import { Generations } from "../components/Generations";
import { Layout, Status } from "../components/Layout";
import { ProjectSettings } from "../components/ProjectSettings";
import { RenderList } from "../components/RenderList";
import { TranscriptPanel } from "../components/TranscriptPanel";
import { UploadList, useUploadQueue } from "../components/UploadQueue";
import { clipFor } from "../compose";
import { formatBytes, formatDuration, formatTime } from "../format";
import { deleteUploadPrompt } from "../messages";
import { Link, navigate } from "../router";

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

function SubtitlePreview(props: { url: string; name: string }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    fetch(props.url)
      .then((r) => (r.ok ? r.text() : ""))
      .then((t) => setText(t.split("\n").slice(0, 8).join("\n")))
      .catch(() => setText(""));
  }, [props.url]);
  return (
    <pre className="subtitle-preview" title={`Start of ${props.name}`}>
      {text ?? "…"}
    </pre>
  );
}

/** `h264 · 1920×1080 · 30 fps · 0:12 · 4.1 MB`: the media facts an upload has. */
function mediaFacts(u: Upload): string {
  const m = u.media;
  const parts: string[] = [u.type];
  if (m?.videoCodec) parts.push(m.videoCodec);
  if (m?.audioCodec) parts.push(m.audioCodec);
  if (m?.width && m.height) parts.push(`${m.width}×${m.height}`);
  if (m?.fps) parts.push(`${Math.round(m.fps * 100) / 100} fps`);
  if (m?.duration != null) parts.push(formatDuration(m.duration));
  parts.push(formatBytes(u.size));
  if (u.previewProxy === "pending") parts.push("preview copy being made");
  return parts.join(" · ");
}

function MediaCard(props: {
  upload: Upload;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onPlay: () => void;
  onDelete: () => void;
  onUse: () => void;
}) {
  const u = props.upload;
  const playable = u.type === "video" || u.type === "audio";
  const usable = u.type !== "font";
  return (
    <li className={`media card${props.selected ? " selected" : ""}`}>
      {u.posterUrl ? (
        <img src={u.posterUrl} alt={`Poster of ${u.name}`} loading="lazy" />
      ) : u.type === "image" ? (
        <img src={u.url} alt={u.name} loading="lazy" />
      ) : u.type === "subtitle" ? (
        <SubtitlePreview url={u.url} name={u.name} />
      ) : (
        <div className="no-poster" aria-hidden="true">
          {u.type}
        </div>
      )}
      <div className="meta">
        <strong className="break">{u.name}</strong>
        <small>{mediaFacts(u)}</small>
        {u.origin === "generated" && <small>Generated</small>}
      </div>
      <div className="actions">
        {usable && (
          <label className="check">
            <input
              type="checkbox"
              checked={props.selected}
              onChange={(e) => props.onSelect(e.target.checked)}
            />
            <span className="visually-hidden">Select {u.name}</span>
            <span aria-hidden="true">Select</span>
          </label>
        )}
        {playable && (
          <button type="button" onClick={props.onPlay} aria-label={`Play ${u.name}`}>
            Play
          </button>
        )}
        {usable && (
          <button
            type="button"
            className="secondary"
            onClick={props.onUse}
            aria-label={`Use in a composition: ${u.name}`}
          >
            Use in a composition
          </button>
        )}
        <button type="button" className="danger" onClick={props.onDelete} aria-label={`Delete ${u.name}`}>
          Delete
        </button>
      </div>
    </li>
  );
}

/** Adds an upload at the end of a composition of the project (a JSON Patch with If-Match). */
function UseInComposition(props: { projectId: string; upload: Upload; onDone: (message: string) => void }) {
  const { list } = useCompositions(props.projectId);
  const [target, setTarget] = useState("");
  const u = props.upload;

  async function add() {
    const c = list?.find((x) => x.id === target);
    if (!c) return;
    const clip = clipFor(u, 0);
    if (!clip) return;
    const kind = u.type === "audio" ? "audio" : "video";
    const index = c.tracks.findIndex((t) => t.kind === kind);
    const end = (clips: { start: number; duration: number }[]) =>
      clips.reduce((m, x) => Math.max(m, x.start + x.duration), 0);
    const ops: PatchOperation[] =
      index >= 0
        ? [
            {
              op: "add",
              path: `/tracks/${index}/clips/-`,
              value: { ...clip, start: end(c.tracks[index]?.clips ?? []) },
            },
          ]
        : [{ op: "add", path: "/tracks/-", value: { kind, clips: [clip] } }];
    const result = await patchComposition(c.id, c.version, ops);
    if (result.ok) navigate(editorPath(props.projectId, c.id));
    else props.onDone(result.message);
  }

  return (
    <section className="card" aria-labelledby="use-in">
      <h2 id="use-in">Use “{u.name}” in a composition</h2>
      {list && list.length > 0 ? (
        <div className="hbox">
          <label>
            Composition
            <select value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Choose…</option>
              {list.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={add} disabled={!target}>
            Add at the end
          </button>
        </div>
      ) : (
        <p>No composition yet: select it and use “New composition from selected”.</p>
      )}
      <button type="button" className="secondary" onClick={() => props.onDone("")}>
        Close
      </button>
    </section>
  );
}

/**
 * One project: its name and description, upload (drag and drop or picker), phone capture, the
 * media with their facts, compositions, generations and renders.
 */
export function ProjectPage(props: { id: string }) {
  const [project, setProject] = useState<Schemas["Project"] | null>(null);
  const [uploads, setUploads] = useState<Upload[] | null>(null);
  const [playing, setPlaying] = useState<Upload | null>(null);
  const [using, setUsing] = useState<Upload | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
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
      })
      .catch((e: unknown) => setError(errorMessage(e)));
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void refresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [props.id, refresh]);

  async function remove(u: Upload) {
    const { data: current } = await api.GET("/api/v1/uploads/{id}", { params: { path: { id: u.id } } });
    const usedBy = current?.usedBy ?? [];
    if (!window.confirm(deleteUploadPrompt(u.name, usedBy))) return;
    // The user has seen who uses it: their clips become missing (relink or delete them in the editor).
    const { response, error } = await api.DELETE("/api/v1/uploads/{id}", {
      params: { path: { id: u.id }, query: { force: usedBy.length > 0 } },
    });
    if (!response.ok) setError(errorMessage(error));
    if (playing?.id === u.id) setPlaying(null);
    await refresh();
  }

  const selectedUploads = selected.flatMap((id) => uploads?.find((u) => u.id === id) ?? []);

  return (
    <Layout title={project?.name ?? "Project"}>
      <p>
        <Link to="/console/projects">← All projects</Link>
      </p>
      <Status message={error} kind="error" />
      {project && <ProjectSettings project={project} onChange={setProject} />}
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
      {using && (
        <UseInComposition
          projectId={props.id}
          upload={using}
          onDone={(message) => {
            setUsing(null);
            setError(message || null);
          }}
        />
      )}
      <AutoEdit projectId={props.id} uploads={uploads} onDone={refresh} />
      <CompositionList
        projectId={props.id}
        selected={selectedUploads}
        onClearSelection={() => setSelected([])}
      />
      <section aria-labelledby="media">
        <h2 id="media">Media</h2>
        {uploads === null ? (
          <p>Loading…</p>
        ) : uploads.length === 0 ? (
          <p>Nothing uploaded yet.</p>
        ) : (
          <ul className="plain media-grid">
            {uploads.map((u) => (
              <MediaCard
                key={u.id}
                upload={u}
                selected={selected.includes(u.id)}
                onSelect={(on) => setSelected((s) => (on ? [...s, u.id] : s.filter((x) => x !== u.id)))}
                onPlay={() => setPlaying(u)}
                onUse={() => setUsing(u)}
                onDelete={() => remove(u)}
              />
            ))}
          </ul>
        )}
      </section>
      <Generations projectId={props.id} onOutputs={refresh} />
      <section className="card" aria-labelledby="renders">
        <h2 id="renders">Renders</h2>
        <RenderList projectId={props.id} />
      </section>
    </Layout>
  );
}
