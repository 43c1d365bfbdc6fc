import { runMediaTool } from "./probe.ts";

/** Sample rate speech recognisers expect, Hz. */
export const SPEECH_SAMPLE_RATE = 16_000;

/**
 * Writes the audio of `input` (a local media file) as 16 kHz mono 16-bit PCM WAV to `output`,
 * optionally only `durationSec` from `startSec` (sample-exact: the audio is decoded, not cut at
 * packet boundaries).
 * @throws MediaProbeError when ffmpeg fails (e.g. the input has no audio stream) or is aborted.
 */
export async function extractSpeechAudio(
  input: string,
  output: string,
  opts: { signal: AbortSignal; startSec?: number; durationSec?: number; timeoutMs: number },
): Promise<void> {
  const trim =
    opts.startSec !== undefined && opts.durationSec !== undefined
      ? ["-af", `atrim=start=${opts.startSec}:duration=${opts.durationSec},asetpts=N/SR/TB`]
      : [];
  await runMediaTool(
    "ffmpeg",
    [
      ...["-nostdin", "-v", "error", "-y", "-protocol_whitelist", "file", "-i", `file:${input}`],
      ...["-vn", "-sn", "-dn", "-map", "0:a:0", "-ac", "1", "-ar", String(SPEECH_SAMPLE_RATE)],
      ...trim,
      ...["-c:a", "pcm_s16le", "-f", "wav", `file:${output}`],
    ],
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
  );
}
