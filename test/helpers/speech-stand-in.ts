// What the transcription stand-ins "hear": every stretch of sound in a 16 kHz mono 16-bit WAV
// (samples above 1 % of full scale, gaps under 100 ms bridged) is one word, so tests know the
// exact times a real engine should report.

/** One "word": a stretch of sound, seconds. */
export interface HeardWord {
  start: number;
  end: number;
  text: string;
}

/** The sound stretches of a 16 kHz mono s16le WAV file's bytes, each named `word<n>` in order. */
export function hearWords(wav: Buffer): HeardWord[] {
  const dataAt = wav.indexOf("data") + 8;
  const rate = wav.readUInt32LE(24);
  const samples = (wav.length - dataAt) >> 1;
  const words: HeardWord[] = [];
  let start = -1;
  let lastLoud = -1;
  for (let i = 0; i < samples; i++) {
    const loud = Math.abs(wav.readInt16LE(dataAt + 2 * i)) > 327;
    if (!loud) continue;
    if (start >= 0 && i - lastLoud > rate / 10) {
      words.push({ start: start / rate, end: (lastLoud + 1) / rate, text: `word${words.length + 1}` });
      start = -1;
    }
    if (start < 0) start = i;
    lastLoud = i;
  }
  if (start >= 0)
    words.push({ start: start / rate, end: (lastLoud + 1) / rate, text: `word${words.length + 1}` });
  return words.map((w) => ({
    ...w,
    start: Math.round(w.start * 1000) / 1000,
    end: Math.round(w.end * 1000) / 1000,
  }));
}

/** The duration of a 16 kHz mono s16le WAV file's bytes, seconds. */
export function wavSeconds(wav: Buffer): number {
  return (wav.length - (wav.indexOf("data") + 8)) / 2 / wav.readUInt32LE(24);
}
