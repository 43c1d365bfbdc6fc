import { useCallback, useState } from "react";
import { type UploadError, type UploadProgress, uploadFile } from "../api/upload";
import { formatBytes } from "../format";

interface Item {
  id: number;
  file: File;
  progress: UploadProgress;
  state: "uploading" | "done" | "failed";
  error?: string;
  /** False when sending the same file again cannot help (too large, wrong type, not allowed). */
  retryable?: boolean;
}

let seq = 0;

/**
 * Uploads files one request each, in parallel, with a progress bar per file, the server's
 * message on failure and a Retry button. Used by the project page (session) and the phone
 * capture page (capture token as `bearer`).
 */
export function useUploadQueue(opts: { projectId?: string; bearer?: string; onUploaded?: () => void }) {
  const [items, setItems] = useState<Item[]>([]);
  const { projectId, bearer, onUploaded } = opts;

  const run = useCallback(
    (item: Item) => {
      const patch = (p: Partial<Item>) =>
        setItems((all) => all.map((i) => (i.id === item.id ? { ...i, ...p } : i)));
      patch({ state: "uploading", error: undefined, progress: { loaded: 0, total: item.file.size } });
      uploadFile(item.file, { projectId, bearer, onProgress: (progress) => patch({ progress }) }).then(
        () => {
          patch({ state: "done", progress: { loaded: item.file.size, total: item.file.size } });
          onUploaded?.();
        },
        (err: UploadError) =>
          patch({ state: "failed", error: err.message, retryable: ![403, 413, 415].includes(err.status) }),
      );
    },
    [projectId, bearer, onUploaded],
  );

  const add = useCallback(
    (files: FileList | File[]) => {
      const added = [...files].map((file) => ({
        id: ++seq,
        file,
        progress: { loaded: 0, total: file.size },
        state: "uploading" as const,
      }));
      setItems((all) => [...added, ...all]);
      for (const item of added) run(item);
    },
    [run],
  );

  return { items, add, retry: run };
}

/** The queue's list: name, size, a labelled progress bar, and the error with Retry. */
export function UploadList(props: { items: Item[]; retry: (item: Item) => void; large?: boolean }) {
  if (props.items.length === 0) return null;
  return (
    <ul className={`plain uploads${props.large ? " large" : ""}`} aria-label="Uploads">
      {props.items.map((i) => {
        const pct = i.progress.total > 0 ? Math.round((100 * i.progress.loaded) / i.progress.total) : 0;
        return (
          <li key={i.id} className={`upload ${i.state}`}>
            <span className="name">
              {i.file.name} <small>({formatBytes(i.file.size)})</small>
            </span>
            <progress
              max={100}
              value={i.state === "done" ? 100 : pct}
              aria-label={`Upload of ${i.file.name}`}
            />
            <span className="state" role={i.state === "failed" ? "alert" : undefined}>
              {i.state === "uploading" && `${pct} %`}
              {i.state === "done" && "Uploaded"}
              {i.state === "failed" && i.error}
            </span>
            {i.state === "failed" && i.retryable && (
              <button type="button" onClick={() => props.retry(i)} aria-label={`Retry ${i.file.name}`}>
                Retry
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
