import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { bearer } from "../helpers/app.ts";

const ff = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args]);

const srtTime = (s: number) => {
  const ms = Math.round(s * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)},${p(ms % 1000, 3)}`;
};

/**
 * Generates the media of the assistant tests with ffmpeg (intro.mp4 4 s, cockatoo.mp4 3 s,
 * music.mp3 8 s) plus talk.srt from the analysis fixture of a travel vlog, and uploads them
 * into a new project of the caller.
 * @returns the project id and the upload ids by file name.
 */
export async function uploadTestMedia(
  base: string,
  key: string,
): Promise<{ projectId: string; ids: Record<string, string> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "cutroom-assistant-"));
  const video = (name: string, seconds: number) =>
    ff([
      ...["-f", "lavfi", "-i", `testsrc=size=160x90:rate=25:duration=${seconds}`],
      ...["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"],
      path.join(dir, name),
    ]);
  video("intro.mp4", 4);
  video("cockatoo.mp4", 3);
  ff(["-f", "lavfi", "-i", "sine=frequency=220:duration=8", path.join(dir, "music.mp3")]);
  const fixture = JSON.parse(
    await readFile(path.join(import.meta.dirname, "../fixtures/analysis/iceland-vlog.json"), "utf8"),
  ) as { subtitles: { start: number; end: number; text: string }[] };
  const srt = fixture.subtitles
    .map((s, i) => `${i + 1}\n${srtTime(s.start)} --> ${srtTime(s.end)}\n${s.text}\n`)
    .join("\n");
  await writeFile(path.join(dir, "talk.srt"), srt);

  const project = await fetch(`${base}/api/v1/projects`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ name: "Assistant test" }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  const form = new FormData();
  form.append("projectId", project.id);
  for (const name of ["intro.mp4", "cockatoo.mp4", "music.mp3", "talk.srt"]) {
    form.append("file", new Blob([await readFile(path.join(dir, name))]), name);
  }
  const res = await fetch(`${base}/api/v1/uploads`, { method: "POST", headers: bearer(key), body: form });
  const body = (await res.json()) as { data: { id: string; name: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { projectId: project.id, ids: Object.fromEntries(body.data.map((u) => [u.name, u.id])) };
}
