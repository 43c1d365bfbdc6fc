import { open, readFile } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../../db/client.ts";
import { findTranscriptionsByIds, type TranscriptionRow } from "../../db/repositories/transcriptions.ts";
import { findUploadsByIds, listFontUploads, type UploadRow } from "../../db/repositories/uploads.ts";
import { fetchRemoteAsset, RemoteAssetError } from "../../media/fetch-remote-asset.ts";
import { MediaProbeError, probeMedia } from "../../media/probe.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { localCopy } from "../../storage/local-copy.ts";
import { clipLabel } from "../composition/clip-label.ts";
import type { Timeline } from "../composition/schema.ts";
import { MAX_UPLOADED_FONTS, readFontFamilyNames } from "../fonts/fonts.ts";
import { RenderError, type ResolvedAsset, type UploadedFont } from "../render/types.ts";
import { captionCues } from "../transcription/exports.ts";
import { SNIFF_BYTES, sniffType } from "../uploads/sniff.ts";

/** Where a composition refers to a media, subtitle or transcript source: one entry per clip. */
export interface AssetRef {
  clipId: string;
  /** The key of the source in the plan's asset map: an upload id, an https URL or a transcription id. */
  key: string;
  uploadId?: string;
  src?: string;
  transcriptionId?: string;
  /** The clip's asset type (`video`, `image`, `audio`, `caption`). */
  assetType: string;
  /** The clip as messages name it: its name (a deleted upload's file name) and start ("cockatoo.mp4 at 0:06"). */
  label: string;
}

/** Every upload and URL the composition reads, in track/clip order. */
export function assetRefs(doc: Timeline): AssetRef[] {
  const refs: AssetRef[] = [];
  for (const track of doc.tracks) {
    for (const clip of track.clips) {
      const label = clipLabel(clip);
      const asset = clip.asset as {
        type: string;
        uploadId?: string;
        src?: string;
        source?: { uploadId?: string; transcriptionId?: string };
      };
      if (asset.uploadId) {
        refs.push({
          clipId: clip.id,
          key: asset.uploadId,
          uploadId: asset.uploadId,
          assetType: asset.type,
          label,
        });
      } else if (asset.src) {
        refs.push({ clipId: clip.id, key: asset.src, src: asset.src, assetType: asset.type, label });
      }
      if (asset.source?.uploadId) {
        const id = asset.source.uploadId;
        refs.push({ clipId: clip.id, key: id, uploadId: id, assetType: asset.type, label });
      }
      if (asset.source?.transcriptionId) {
        const id = asset.source.transcriptionId;
        refs.push({ clipId: clip.id, key: id, transcriptionId: id, assetType: asset.type, label });
      }
    }
  }
  return refs;
}

/** Limits of remote (`src`) asset downloads. */
export interface RemoteAssetLimits {
  /** Largest file, bytes. */
  maxBytes: number;
  /** Time limit of one download, milliseconds. */
  timeoutMs: number;
}

/** Remote asset limits of renders and preflights: 512 MiB, 5 minutes. */
export const DEFAULT_REMOTE_LIMITS: RemoteAssetLimits = {
  maxBytes: 512 * 1024 * 1024,
  timeoutMs: 5 * 60_000,
};

/**
 * Resolves every source a render reads to a local file: uploads (in place on local disk, else
 * downloaded into `workDir`), remote `src` assets (downloaded with SSRF protection, then sniffed
 * and probed like an upload), the caller's fonts, and the caption cues (with word times) of the
 * transcriptions caption clips take their cues from.
 *
 * @returns the plan's asset map (keyed by upload id, URL or transcription id), the caller's
 *   fonts, and which clip reads which local file (to name the clip when ffmpeg fails on an input).
 * @throws RenderError `ASSET_NOT_FOUND` (upload or transcription gone), `ASSET_FETCH_FAILED`
 *   (download refused or failed; retryable only for network errors and timeouts),
 *   `ASSET_UNSUPPORTED` (the remote file is not media of the clip's type; the transcription has
 *   not succeeded), each with the clip id: every source is tried, the first problem is thrown and
 *   the others are in its `more`.
 */
export async function resolveRenderAssets(input: {
  db: Db;
  store: BlobStore;
  userId: string;
  doc: Timeline;
  workDir: string;
  remote: RemoteAssetLimits;
  signal: AbortSignal;
  /** Only the sources of these clips (a part of a split render); default every clip's. */
  clipIds?: ReadonlySet<string>;
  /** Also resolve the `ready` preview proxies of video uploads (`ResolvedAsset.proxy`): previews only. */
  proxies?: boolean;
}): Promise<{
  assets: Map<string, ResolvedAsset>;
  fonts: UploadedFont[];
  refsByPath: Map<string, AssetRef>;
}> {
  const { db, store, workDir } = input;
  const only = input.clipIds;
  const refs = assetRefs(input.doc).filter((r) => !only || only.has(r.clipId));
  const uploadIds = [...new Set(refs.flatMap((r) => (r.uploadId ? [r.uploadId] : [])))];
  const rows = await findUploadsByIds(db, input.userId, uploadIds);
  const byId = new Map<string, UploadRow>(rows.map((u) => [u.id, u]));
  const transcriptionIds = [...new Set(refs.flatMap((r) => (r.transcriptionId ? [r.transcriptionId] : [])))];
  const transcripts = new Map(
    (await findTranscriptionsByIds(db, input.userId, transcriptionIds)).map((t) => [t.id, t]),
  );
  const assets = new Map<string, ResolvedAsset>();
  const refsByPath = new Map<string, AssetRef>();
  let remoteCount = 0;
  const problems: RenderError[] = [];
  const failed = new Set<string>();
  for (const ref of refs) {
    if (assets.has(ref.key) || failed.has(ref.key)) continue;
    input.signal.throwIfAborted();
    try {
      if (ref.uploadId) {
        const upload = byId.get(ref.uploadId);
        if (!upload) {
          throw new RenderError(
            "ASSET_NOT_FOUND",
            `${ref.label}: its upload was deleted; relink the clip to another upload (or upload the file again) or delete it`,
            { clipId: ref.clipId, uploadId: ref.uploadId },
          );
        }
        const file = await localCopy(store, upload.storageKey, workDir, `asset-${upload.id}`);
        const resolved: ResolvedAsset = {
          path: file,
          type: upload.type,
          media: upload.media && { ...upload.media, formatName: formatNameOf(upload) },
          name: upload.name,
          ...(upload.type === "video" && upload.keyframes ? { keyframes: upload.keyframes } : {}),
        };
        if (upload.type === "subtitle") resolved.text = await readFile(file, "utf8");
        const proxy = input.proxies ? await proxyCopy(store, upload, workDir) : undefined;
        if (proxy) {
          resolved.proxy = proxy;
          refsByPath.set(proxy.path, ref);
        }
        assets.set(ref.key, resolved);
        refsByPath.set(file, ref);
      } else if (ref.transcriptionId) {
        assets.set(ref.key, transcriptCaptions(ref, transcripts.get(ref.transcriptionId)));
      } else if (ref.src) {
        remoteCount += 1;
        const file = path.join(workDir, `remote-${remoteCount}`);
        assets.set(ref.key, await fetchRemote(ref, file, input.remote, input.signal));
        refsByPath.set(file, ref);
      }
    } catch (err) {
      if (!(err instanceof RenderError)) throw err;
      problems.push(err);
      failed.add(ref.key);
    }
  }
  const [first, ...more] = problems;
  if (first) {
    throw new RenderError(first.code, first.message, {
      ...(first.clipId ? { clipId: first.clipId } : {}),
      ...(first.uploadId ? { uploadId: first.uploadId } : {}),
      retryable: first.retryable,
      more,
    });
  }

  const fontRows = await listFontUploads(db, input.userId, MAX_UPLOADED_FONTS);
  const fonts: UploadedFont[] = [];
  for (const f of fontRows) {
    const file = await localCopy(store, f.storageKey, workDir, `font-${f.id}`);
    // Families recorded at upload; a font stored before they were recorded is read here.
    for (const family of f.fontFamilies ?? readFontFamilyNames(await readFile(file))) {
      fonts.push({ family, path: file, uploadId: f.id });
    }
  }
  return { assets, fonts, refsByPath };
}

/**
 * A local path of the upload's preview proxy when it is `ready` (in place on local disk, else
 * downloaded into `workDir`); undefined when there is none or it cannot be fetched (the preview
 * then reads the original: a proxy never fails a preview).
 */
async function proxyCopy(
  store: BlobStore,
  upload: UploadRow,
  workDir: string,
): Promise<ResolvedAsset["proxy"] | undefined> {
  const proxy = upload.previewProxy;
  if (upload.type !== "video" || proxy?.status !== "ready") return undefined;
  try {
    const file = await localCopy(store, proxy.key, workDir, `proxy-${upload.id}`);
    return { path: file, width: proxy.width, height: proxy.height };
  } catch {
    return undefined;
  }
}

/**
 * The caption cues of a caption clip's transcription (words grouped into cues, each with its
 * words' times). @throws RenderError naming the clip and `asset.source.transcriptionId`:
 * `ASSET_NOT_FOUND` when it is gone (or another account's), `ASSET_UNSUPPORTED` when it has not
 * succeeded.
 */
function transcriptCaptions(ref: AssetRef, t: TranscriptionRow | undefined): ResolvedAsset {
  const field = `clip ${ref.clipId}: asset.source.transcriptionId`;
  if (!t) {
    throw new RenderError("ASSET_NOT_FOUND", `${field}: transcription ${ref.key} no longer exists`, {
      clipId: ref.clipId,
    });
  }
  if (t.status !== "succeeded" || !t.result) {
    throw new RenderError(
      "ASSET_UNSUPPORTED",
      `${field}: transcription ${t.id} is ${t.status}; captions need a succeeded transcription`,
      { clipId: ref.clipId },
    );
  }
  return { path: "", type: "subtitle", cues: captionCues(t.result) };
}

/** Downloads, sniffs and probes one remote asset. */
async function fetchRemote(
  ref: AssetRef,
  file: string,
  limits: RemoteAssetLimits,
  signal: AbortSignal,
): Promise<ResolvedAsset> {
  const host = safeHost(ref.src ?? "");
  try {
    await fetchRemoteAsset(ref.src ?? "", file, { ...limits, signal });
  } catch (err) {
    if (err instanceof RemoteAssetError) {
      throw new RenderError(
        "ASSET_FETCH_FAILED",
        `clip ${ref.clipId}: fetching its file from ${host} failed: ${err.message}`,
        {
          clipId: ref.clipId,
          retryable: err.retryable,
        },
      );
    }
    throw err;
  }
  const unsupported = (why: string) =>
    new RenderError("ASSET_UNSUPPORTED", `clip ${ref.clipId}: the file from ${host} ${why}`, {
      clipId: ref.clipId,
    });
  const handle = await open(file, "r");
  const head = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0).finally(() => handle.close());
  const sniffed = await sniffType(head.subarray(0, bytesRead));
  // Only media containers reach ffmpeg: a playlist or anything else that could make it open
  // other URLs or files is refused here.
  if (!sniffed || (sniffed.type !== "video" && sniffed.type !== "audio" && sniffed.type !== "image")) {
    throw unsupported("is not a video, audio or image file");
  }
  let probe: Awaited<ReturnType<typeof probeMedia>>;
  try {
    probe = await probeMedia(file, { timeoutMs: 30_000, signal });
  } catch (err) {
    if (err instanceof MediaProbeError) throw unsupported(`cannot be read as media: ${err.message}`);
    throw err;
  }
  const wanted = ref.assetType;
  const ok =
    wanted === "image"
      ? sniffed.type === "image" && probe.hasVideo
      : wanted === "video"
        ? sniffed.type === "video" && probe.hasVideo
        : probe.hasAudio;
  if (!ok) throw unsupported(`is ${sniffed.mimeType} without the ${wanted} the clip needs`);
  return {
    path: file,
    type: wanted as ResolvedAsset["type"],
    media: {
      duration: wanted === "image" ? null : probe.duration,
      hasAudio: wanted !== "image" && probe.hasAudio,
      hasVideo: probe.hasVideo,
      width: probe.width,
      height: probe.height,
      fps: probe.fps,
      videoCodec: probe.videoCodec,
      formatName: probe.formatName,
    },
  };
}

/**
 * The demuxer name of an upload: kept in its media facts, else (uploads probed before it was
 * kept) `mpegts` for an MPEG-TS by its sniffed MIME type, the one common container whose seeks
 * need it (`containerSeekOf`).
 */
function formatNameOf(upload: UploadRow): string | undefined {
  return upload.media?.formatName ?? (upload.mimeType === "video/mp2t" ? "mpegts" : undefined);
}

function safeHost(src: string): string {
  try {
    return new URL(src).host;
  } catch {
    return "an invalid URL";
  }
}
