/**
 * Studio timeline benchmark in a real browser (Debian's Chromium through playwright-core):
 *
 *   node bench/studio/timeline.ts
 *
 * Starts the API (embedded PGlite, fresh data directory), signs in through the setup link,
 * creates a composition of 500 colour clips on 6 tracks and opens it in the editor, then:
 * - opening: navigation → every clip block drawn, milliseconds;
 * - scrolling: the timeline scrolled 4,000 px at 20 px per animation frame at the widest zoom;
 *   p50/p95/max of the frame intervals (requestAnimationFrame deltas), milliseconds;
 * - patches: 100 edits (Delete, then Ctrl+Z, alternately: each a PATCH and a re-render of all
 *   blocks) with a playhead key press (→) after each: the key's input latency (keydown → the
 *   frame after the update is painted) p50/p95, and each edit's time to its new version shown.
 * Prints a JSON summary; bench/README.md records the figures.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { type Api, startApi, stopProcess, waitUntil } from "../processes.ts";

const CHROMIUM = "/usr/bin/chromium";
const CLIPS = 500;
const TRACKS = 6;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}
const stats = (xs: number[]) => ({
  p50: Math.round(quantile(xs, 0.5) * 10) / 10,
  p95: Math.round(quantile(xs, 0.95) * 10) / 10,
  max: Math.round(Math.max(...xs) * 10) / 10,
});

/** A composition of `CLIPS` colour clips spread over `TRACKS` video tracks, 2 s each, 0.5 s gaps. */
function bigComposition() {
  const perTrack = Math.ceil(CLIPS / TRACKS);
  return {
    name: "500 clips",
    canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
    tracks: Array.from({ length: TRACKS }, (_, t) => ({
      kind: "video",
      clips: Array.from({ length: Math.min(perTrack, CLIPS - t * perTrack) }, (_, i) => ({
        name: `c${t}-${i}`,
        start: i * 2.5,
        duration: 2,
        asset: { type: "color", color: `#${((t * 40 + i * 7) % 200).toString(16).padStart(2, "0")}4080` },
      })),
    })),
  };
}

// Page scripts are strings: this file is type-checked without the DOM library.

/** Time from a `→` key press to the frame after React's update was painted, milliseconds. */
const KEY_LATENCY = `new Promise((resolve) => {
  const t0 = performance.now();
  window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
  requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
})`;

/** Scrolls the timeline 20 px per animation frame for 200 frames; the frame intervals, ms. */
const SCROLL = `new Promise((resolve) => {
  const el = document.querySelector(".timeline");
  el.scrollLeft = 0;
  const deltas = [];
  let last = performance.now();
  const step = () => {
    const now = performance.now();
    deltas.push(now - last);
    last = now;
    el.scrollLeft += 20;
    if (deltas.length < 200) requestAnimationFrame(step);
    else resolve(deltas.slice(1));
  };
  requestAnimationFrame(step);
})`;

/** Creates a project and the composition (the page's session and CSRF token); their ids. */
const create = (body: unknown) => `(async () => {
  const { csrfToken } = await (await fetch("/api/v1/auth/session")).json();
  const h = { "X-CSRF-Token": csrfToken, "Content-Type": "application/json" };
  const project = await (await fetch("/api/v1/projects", { method: "POST", headers: h, body: '{"name":"bench"}' })).json();
  const comp = await (await fetch("/api/compositions", {
    method: "POST", headers: h, body: JSON.stringify({ ...${JSON.stringify(body)}, projectId: project.id }),
  })).json();
  return { projectId: project.id, id: comp.id };
})()`;

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const dir = await mkdtemp(path.join(tmpdir(), "cutroom-timeline-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  let api: Api | undefined;
  try {
    api = await startApi({ DATA_DIR: path.join(dir, "data") });
    const setup = (
      /(http:\/\/\S+\/console\/setup\?token=crp_\w+)/.exec(api.proc.output.join("")) as RegExpExecArray
    )[1];
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(setup as string);
    await page.getByLabel("New password").fill("a long enough password");
    await page.getByLabel("Repeat the password").fill("a long enough password");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const created = await page.evaluate<{ projectId: string; id: string }>(create(bigComposition()));

    const t0 = Date.now();
    await page.goto(`${api.base}/console/projects/${created.projectId}/compositions/${created.id}`);
    await waitUntil(async () => (await page.locator(".clip").count()) === CLIPS, 60_000, "500 blocks");
    const openMs = Date.now() - t0;
    log(`opened in ${openMs} ms`);

    for (let i = 0; i < 6; i++) await page.getByRole("button", { name: "Zoom in" }).click();
    const frames = await page.evaluate<number[]>(SCROLL);

    await page.locator(".clip").first().click();
    const input: number[] = [];
    const edits: number[] = [];
    for (let i = 0; i < 100; i++) {
      const before = (await page.getByTestId("version").textContent()) ?? "";
      const started = Date.now();
      await page.keyboard.press(i % 2 === 0 ? "Delete" : "Control+z");
      input.push(await page.evaluate<number>(KEY_LATENCY));
      await waitUntil(
        async () => (await page.getByTestId("version").textContent()) !== before,
        10_000,
        "the edit",
      );
      edits.push(Date.now() - started);
      if (i % 2 === 1) await page.locator(".clip").first().click();
    }
    console.log(
      JSON.stringify(
        {
          clips: CLIPS,
          tracks: TRACKS,
          openMs,
          scrollFrameMs: stats(frames),
          inputLatencyMs: stats(input),
          editToVersionMs: stats(edits),
        },
        null,
        2,
      ),
    );
  } finally {
    await browser.close();
    if (api) await stopProcess(api.proc);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
