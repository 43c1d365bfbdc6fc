/**
 * ffmpeg filters (comma-joined, for `-vf` or a `-filter_complex` chain) that resample a picture
 * with non-square pixels (sample aspect ratio ≠ 1, e.g. 720x576 PAL at 16:15) to square pixels at
 * its display size (768x576), the size `probeMedia` reports. A square-pixel picture passes through
 * unchanged (`scale` to the same size is a no-op); an unknown ratio counts as square.
 */
export const SQUARE_PIXELS = "scale=w='max(2,round(iw*sar))':h=ih,setsar=1";
