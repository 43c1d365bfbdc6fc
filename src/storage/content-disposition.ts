/**
 * Types a browser may render inline from our origin without running code: media and raster
 * images, subtitle text and fonts. Anything else (HTML, SVG, XML, JavaScript, PDF, unknown…)
 * is served as an attachment, so a stored file can never execute in the API's origin.
 */
const INLINE_SAFE = [
  /^video\/[a-z0-9.+-]+$/,
  /^audio\/[a-z0-9.+-]+$/,
  /^image\/(jpeg|png|gif|webp|bmp|tiff|apng|avif)$/,
  /^text\/vtt$/,
  /^application\/x-subrip$/,
  /^font\/(ttf|otf|woff|woff2)$/,
];

/** `true` when `contentType` (parameters ignored) is safe to serve `inline`; see {@link contentDispositionFor}. */
export function isInlineSafe(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const bare = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return INLINE_SAFE.some((re) => re.test(bare));
}

/**
 * The `Content-Disposition` header for serving a file: `inline` for {@link isInlineSafe} types,
 * `attachment` otherwise, with the file name (user metadata) quoted; a name that is not plain
 * printable ASCII gets an ASCII fallback plus an RFC 5987 `filename*` (no quotes, CR/LF or `\`
 * get through).
 */
export function contentDispositionFor(contentType: string | undefined, filename?: string): string {
  const kind = isInlineSafe(contentType) ? "inline" : "attachment";
  if (!filename) return kind;
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_").slice(0, 200) || "file";
  if (fallback === filename) return `${kind}; filename="${fallback}"`;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
