import { useEffect } from "react";
import { UploadList, useUploadQueue } from "../components/UploadQueue";

/**
 * The phone capture page (`/capture/<token>`): camera and file inputs with large targets, each
 * file posted to `POST /api/v1/uploads` with the capture token as bearer, progress and retry.
 */
export function CapturePage(props: { token: string }) {
  const queue = useUploadQueue({ bearer: props.token });
  useEffect(() => {
    document.title = "Send to Cutroom";
  }, []);
  const onFiles = (e: React.ChangeEvent<HTMLInputElement>) => {
    if (e.target.files && e.target.files.length > 0) queue.add(e.target.files);
    e.target.value = "";
  };
  return (
    <main id="main" className="capture">
      <h1>Send to Cutroom</h1>
      <p>Files go straight into the project this link was made for. The link works for 30 minutes.</p>
      <div className="big-buttons">
        <label className="button big">
          Record video
          <input
            type="file"
            accept="video/*"
            capture="environment"
            className="visually-hidden"
            onChange={onFiles}
          />
        </label>
        <label className="button big">
          Take photo
          <input
            type="file"
            accept="image/*"
            capture="environment"
            className="visually-hidden"
            onChange={onFiles}
          />
        </label>
        <label className="button big secondary">
          Choose files
          <input type="file" multiple className="visually-hidden" onChange={onFiles} />
        </label>
      </div>
      <UploadList items={queue.items} retry={queue.retry} large />
    </main>
  );
}
