/** Video codecs whose pictures never carry alpha as ffmpeg decodes them (native VP8/VP9 decoders drop it). */
const OPAQUE_CODECS = new Set([
  "h264",
  "hevc",
  "av1",
  "vp8",
  "vp9",
  "mpeg4",
  "mpeg2video",
  "mpeg1video",
  "mjpeg",
  "theora",
  "h263",
  "wmv1",
  "wmv2",
  "wmv3",
  "vc1",
  "dvvideo",
  "dnxhd",
]);

/**
 * Whether pictures of this ffmpeg video codec (`h264`, `prores`…) never carry alpha as ffmpeg
 * decodes them; false for an unknown or absent codec.
 */
export function isOpaqueVideoCodec(codec: string | null | undefined): boolean {
  return typeof codec === "string" && OPAQUE_CODECS.has(codec);
}
