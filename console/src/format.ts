/** `1536000` → `1.5 MB` (decimal units, as file managers show). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n;
  let i = -1;
  do {
    v /= 1000;
    i++;
  } while (v >= 1000 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/**
 * Seconds → `m:ss` or `h:mm:ss`, whole seconds counted down as a player's clock counts them (a
 * 6.6 s render reads 0:06, as its player says; a time a microsecond short of a second counts as it).
 */
export function formatDuration(sec: number): string {
  const s = Math.floor(sec + 1e-6);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** ISO timestamp → local date and time. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}
