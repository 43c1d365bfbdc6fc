/**
 * How an input-side `-ss` lands in a container, by ffmpeg's demuxer name. Containers with an
 * index (mp4/mov, Matroska/WebM, FLV, AVI…) seek to the keyframe at or before the time, and
 * decoding from there reaches every frame after it.
 *
 * MPEG-TS and MPEG-PS carry no index: ffmpeg (5.1) bisects the file by packet timestamps and
 * lands on the video packet at or before the time, keyframe or not. The decoder then drops
 * frames until the next keyframe, so a seek into a group of pictures starts up to a GOP late
 * (showing later frames), and a seek into the last GOP decodes nothing at all (measured on x264,
 * x265 and MPEG-2 streams in `.ts`).
 *
 * Raw elementary streams (`.h264`, `.hevc`, `.m2v`) have no timestamps to seek by: even `-ss 0`
 * decodes nothing.
 */

/**
 * - `"index"`: `-ss` lands on the keyframe at or before the time.
 * - `"search"`: `-ss` lands on any packet at or before the time; decoding starts at the next keyframe.
 * - `"none"`: `-ss` is unusable; read from the start.
 */
export type ContainerSeek = "index" | "search" | "none";

const SEARCH_FORMATS = new Set(["mpegts", "mpegtsraw", "mpeg", "vob"]);
const RAW_FORMATS = new Set(["h264", "hevc", "mpegvideo", "m4v", "vc1", "cavsvideo", "obu"]);

/**
 * How `-ss` lands in a file whose demuxer ffprobe names `formatName` (`MediaInfo.formatName`,
 * possibly a comma-separated list such as `mov,mp4,m4a,3gp,3g2,mj2`); `"index"` when unknown.
 */
export function containerSeekOf(formatName: string | undefined): ContainerSeek {
  const names = (formatName ?? "").split(",").map((n) => n.trim());
  if (names.some((n) => RAW_FORMATS.has(n))) return "none";
  if (names.some((n) => SEARCH_FORMATS.has(n))) return "search";
  return "index";
}

/**
 * Seconds before a keyframe that an input seek into a `"search"` container aims: the packet the
 * demuxer lands on then lies before the keyframe's packets (whose decode time precedes their
 * presentation time by the B-frame delay), decoding starts at that keyframe, and the sound is
 * decoded from before the first needed sample.
 */
export const SEARCH_SEEK_MARGIN_SEC = 1;

/**
 * Where an input `-ss` goes to read a video from source time `startSec` (seconds from the
 * file's start), and how many source seconds before `startSec` the reader then decodes and
 * drops: `startSec` itself (nothing dropped) for an `"index"` container; for `"search"`,
 * {@link SEARCH_SEEK_MARGIN_SEC} before the last of `keyframeTimes` (seconds, ascending) at or
 * before `startSec`, or the file's start without them; for `"none"`, no `-ss` (`seekSec` null)
 * and everything before `startSec` dropped.
 */
export function seekToRead(
  startSec: number,
  container: ContainerSeek,
  keyframeTimes?: readonly number[],
): { seekSec: number | null; skipSec: number } {
  const start = Math.max(0, startSec);
  if (container === "index") return { seekSec: start, skipSec: 0 };
  if (container === "none") return { seekSec: null, skipSec: start };
  let keyframe = 0;
  for (const t of keyframeTimes ?? []) {
    if (t > start + 1e-6) break;
    keyframe = t;
  }
  const seekSec = keyframeTimes?.length ? Math.max(0, keyframe - SEARCH_SEEK_MARGIN_SEC) : 0;
  return { seekSec, skipSec: start - seekSec };
}
