/** Kinds of upload (`Upload.type`), detected from a file's bytes when it is uploaded. */
export const UPLOAD_TYPES = ["video", "audio", "image", "subtitle", "font"] as const;

/** One kind of upload: `video`, `audio`, `image`, `subtitle` (SRT, WebVTT) or `font` (TTF, OTF, WOFF2). */
export type UploadType = (typeof UPLOAD_TYPES)[number];
