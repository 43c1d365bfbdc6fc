import { memo, useEffect, useMemo, useState } from "react";
import { api } from "../api/client";
import { columnsPerSecond, memoisedColumns, type Peaks, waveformShape } from "../waveform";

/** Peaks per upload once answered (null: no sound, or the upload cannot be analysed). */
const answered = new Map<string, Peaks | null>();
const asked = new Map<string, Promise<Peaks | null>>();

/**
 * The audio peaks of upload `id` from `GET /api/v1/uploads/{id}/analysis` (measured by the
 * server on first request, then cached there), asked once per page. A 4xx answer (not audio or
 * video, gone) is kept as "no peaks"; a network failure or 5xx is asked again next time.
 */
function loadPeaks(id: string): Promise<Peaks | null> {
  let p = asked.get(id);
  if (!p) {
    p = api.GET("/api/v1/uploads/{id}/analysis", { params: { path: { id } } }).then(
      ({ data, response }) => {
        if (!data && response.status >= 500) asked.delete(id);
        else answered.set(id, data?.peaks ?? null);
        return data?.peaks ?? null;
      },
      () => {
        asked.delete(id);
        return null;
      },
    );
    asked.set(id, p);
  }
  return p;
}

function usePeaks(uploadId: string): Peaks | null {
  const [peaks, setPeaks] = useState(() => answered.get(uploadId) ?? null);
  useEffect(() => {
    let live = true;
    void loadPeaks(uploadId).then((p) => live && setPeaks(p));
    return () => {
      live = false;
    };
  }, [uploadId]);
  return peaks;
}

/**
 * The waveform of the sound a clip plays, drawn as one SVG path from the server's peaks: the
 * source from the clip's in-point (`trim`) for `duration × speed` seconds, `duration ×
 * pxPerSecond` pixels wide. The resampled peaks are memoised per upload and zoom, the path per
 * clip; nothing is drawn until the peaks arrive, or for silence.
 */
export const Waveform = memo(function Waveform(props: {
  uploadId: string;
  trim: number;
  speed: number;
  duration: number;
  pxPerSecond: number;
}) {
  const { uploadId, trim, speed, duration, pxPerSecond } = props;
  const peaks = usePeaks(uploadId);
  const shape = useMemo(() => {
    if (!peaks || peaks.values.length === 0) return null;
    const cps = columnsPerSecond(peaks, pxPerSecond, speed, duration * speed);
    return waveformShape(memoisedColumns(uploadId, peaks, cps), cps, { trim, speed, duration });
  }, [peaks, uploadId, trim, speed, duration, pxPerSecond]);
  if (!shape?.path) return null;
  return (
    <svg
      className="waveform"
      viewBox={`0 0 ${shape.width} 100`}
      preserveAspectRatio="none"
      style={{ width: duration * pxPerSecond }}
      role="img"
      aria-label="Waveform"
    >
      <path d={shape.path} />
    </svg>
  );
});
