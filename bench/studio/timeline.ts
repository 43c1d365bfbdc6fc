/**
 * Studio timeline benchmark in a real browser (Debian's Chromium through playwright-core):
 *
 *   node bench/studio/timeline.ts [--console DIR]... [--rounds N] [--trace DIR] [--only scroll]
 *
 * Starts the API (embedded PGlite, fresh data directory) serving the console build in DIR
 * (default dist/console; give `--console` twice, e.g. a build of an earlier commit and the
 * current one, to compare them in one run: they are measured alternately, `--rounds` times
 * each), signs in through the setup link, creates a composition of 500 colour clips on 6 tracks
 * and opens it in the editor, then:
 * - opening: navigation → every clip block drawn (all 500 fit the window at the opening zoom),
 *   milliseconds;
 * - scrolling: the timeline scrolled 12,000 px at 20 px per animation frame at the widest zoom.
 *   Frame time: from each frame's start (the requestAnimationFrame timestamp) until the main
 *   thread has run that frame's scroll handlers, style, layout and paint (a message posted from
 *   the frame's callback runs after them), p50/p95/max in milliseconds; and the intervals
 *   between frames (what the display shows: 16.7 ms at 60 Hz, longer for a dropped frame);
 *   and Chromium's CPU time per frame over the scroll, all its processes and threads (from
 *   /proc: the figure other processes' load does not inflate), with the busiest threads;
 * - patches: 100 edits (Delete, then Ctrl+Z, alternately: each a PATCH and a re-render) with a
 *   playhead key press (→) after each: the key's input latency (keydown → the frame after the
 *   update is painted) p50/p95, and each edit's time to its new version shown.
 * Prints a JSON summary per console build, with the load average before and after each.
 * `--trace DIR` records a Chrome trace of each scroll (DIR/scroll-<build>-<round>.json, opens in
 * DevTools' Performance panel or ui.perfetto.dev); `--only scroll` skips the 100 edits;
 * `--layers` prints the page's composited layers (size, whether they draw, Chromium's reasons)
 * before the scroll: a layer more than the page and the scrolled timeline costs every frame.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { type Api, ROOT, startApi, stopProcess, waitUntil } from "../processes.ts";

const CHROMIUM = "/usr/bin/chromium";
const CLIPS = 500;
const TRACKS = 6;
/** Frames scrolled (20 px each): enough for a p95 that one descheduled frame does not decide. */
const SCROLL_FRAMES = 600;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

const argv = process.argv.slice(2);
const consoles = argv.flatMap((a, i) => (a === "--console" ? [path.resolve(argv[i + 1] ?? "")] : []));
if (consoles.length === 0) consoles.push(path.join(ROOT, "dist", "console"));
const ROUNDS = Number(argv[argv.indexOf("--rounds") + 1] ?? 1) || 1;
const TRACE_DIR = argv.includes("--trace") ? path.resolve(argv[argv.indexOf("--trace") + 1] ?? "") : null;
const SCROLL_ONLY = argv[argv.indexOf("--only") + 1] === "scroll" && argv.includes("--only");
const LAYERS = argv.includes("--layers");
/** Trace categories of DevTools' Performance panel (tasks, style, layout, paint, script). */
const TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"];

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

/**
 * Scrolls the timeline 20 px per animation frame for `SCROLL_FRAMES` frames. Per frame: its main-thread
 * time (the frame's start → a message posted from its callback, which runs once the frame's
 * style, layout and paint are done) and the interval since the previous frame, ms.
 */
const SCROLL = `new Promise((resolve) => {
  const el = document.querySelector(".timeline");
  el.scrollLeft = 0;
  const intervals = [];
  const work = [];
  let last = null;
  const step = (frameStart) => {
    if (last !== null) intervals.push(frameStart - last);
    last = frameStart;
    el.scrollLeft += 20;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => work.push(performance.now() - frameStart);
    channel.port2.postMessage(0);
    if (intervals.length < ${SCROLL_FRAMES}) requestAnimationFrame(step);
    else setTimeout(() => resolve({ intervals, work: work.slice(1) }), 100);
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

/**
 * Clicks the first clip block until it is selected. Playwright scrolls it into view first, which
 * can move the timeline's drawn window under the pointer: under load the click then missed now
 * and then, and the Delete after it did nothing.
 */
async function selectFirstClip(page: Page): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.locator(".clip").first().click();
    if ((await page.locator(".clip.selected").count()) > 0) return;
  }
  throw new Error("no clip block could be selected");
}

/** Prints the page's composited layers: size, whether it draws content, the element, the reasons. */
async function printLayers(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  type Layer = {
    layerId: string;
    width: number;
    height: number;
    drawsContent: boolean;
    backendNodeId?: number;
    scrollRects?: unknown[];
  };
  const tree = new Promise<Layer[]>((resolve) =>
    cdp.on("LayerTree.layerTreeDidChange", (e: { layers?: Layer[] }) => {
      if (e.layers) resolve(e.layers);
    }),
  );
  await cdp.send("DOM.getDocument");
  await cdp.send("LayerTree.enable");
  await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
  for (const l of await tree) {
    const { compositingReasons } = (await cdp.send("LayerTree.compositingReasons", {
      layerId: l.layerId,
    })) as {
      compositingReasons: string[];
    };
    let node = "";
    if (l.backendNodeId) {
      const d = (await cdp
        .send("DOM.describeNode", { backendNodeId: l.backendNodeId })
        .catch(() => null)) as { node: { localName: string; attributes?: string[] } } | null;
      const attrs = d?.node.attributes ?? [];
      node = `${d?.node.localName ?? "?"}.${attrs[attrs.indexOf("class") + 1] ?? ""}`;
    }
    log(
      `layer ${l.layerId} ${l.width}×${l.height}${l.drawsContent ? " draws" : ""} ${node} [${compositingReasons.join(", ")}]`,
    );
  }
  await cdp.send("LayerTree.disable");
  await cdp.detach();
}

/** Everything measured of one console build. */
interface Result {
  console: string;
  loadBefore: number[];
  loadAfter: number[];
  openMs: number;
  scrollFrameMs: ReturnType<typeof stats>;
  scrollIntervalMs: ReturnType<typeof stats>;
  /** Chromium's CPU time (all processes and threads) per scrolled frame, and the busiest threads. */
  scrollCpuMsPerFrame: number;
  scrollCpuThreads: Record<string, number>;
  inputLatencyMs: ReturnType<typeof stats>;
  editToVersionMs: ReturnType<typeof stats>;
  /** Edits that landed (100 unless one showed no new version in time). */
  edits: number;
}

/** Clock ticks per second of /proc's CPU times (Linux's USER_HZ). */
const CLK_TCK = 100;

/**
 * CPU time of every thread of Chromium's processes (the browser started with the switch
 * `marker` and all its descendants: renderer, GPU, utility), keyed by process type and thread
 * name (e.g. `renderer/CrRendererMain`, `renderer/CompositorTileW`), milliseconds. Unlike
 * wall-clock frame times, it does not grow when other processes take the cores.
 */
function chromiumCpu(marker: string): Map<string, number> {
  const parent = new Map<number, number>();
  let root = 0;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (!root && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) root = pid;
    } catch {} // exited meanwhile
  }
  const within = (pid: number): boolean => pid === root || (pid > 1 && within(parent.get(pid) ?? 0));
  const cpu = new Map<string, number>();
  for (const pid of parent.keys()) {
    if (!root || !within(pid)) continue;
    try {
      const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"))?.[1] ?? "browser";
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const thread = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const ms = ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK; // utime + stime
        const key = `${type}/${tid === String(pid) ? "main" : thread}`;
        cpu.set(key, (cpu.get(key) ?? 0) + ms);
      }
    } catch {} // exited meanwhile
  }
  return cpu;
}

const load = () => loadavg().map((x) => Math.round(x * 10) / 10);

/** Starts the API serving `consoleDir`, runs the three measurements, stops it. */
async function measure(consoleDir: string, round: number): Promise<Result> {
  const loadBefore = load();
  const dir = await mkdtemp(path.join(tmpdir(), "cutroom-timeline-"));
  const marker = `--cutroom-bench=${path.basename(dir)}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", marker],
  });
  let api: Api | undefined;
  try {
    // A first start (migrations on a fresh PGlite) can take over a minute on a loaded machine.
    api = await startApi(
      { DATA_DIR: path.join(dir, "data"), CONSOLE_DIR: consoleDir },
      { timeoutMs: 180_000 },
    );
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
    log(`${consoleDir}: opened in ${openMs} ms`);

    for (let i = 0; i < 6; i++) await page.getByRole("button", { name: "Zoom in" }).click();
    if (LAYERS) await printLayers(page);
    const tracePath = TRACE_DIR && path.join(TRACE_DIR, `scroll-${path.basename(consoleDir)}-${round}.json`);
    if (tracePath) await browser.startTracing(page, { path: tracePath, categories: TRACE_CATEGORIES });
    const cpu0 = chromiumCpu(marker);
    const scroll = await page.evaluate<{ intervals: number[]; work: number[] }>(SCROLL);
    const cpu1 = chromiumCpu(marker);
    const used = [...cpu1].map(([k, v]) => [k, v - (cpu0.get(k) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
    const perFrame = (ms: number) => Math.round((ms / SCROLL_FRAMES) * 100) / 100;
    if (tracePath) {
      await browser.stopTracing();
      log(`trace of the scroll: ${tracePath}`);
    }

    await selectFirstClip(page);
    const input: number[] = [];
    const edits: number[] = [];
    for (let i = 0; i < (SCROLL_ONLY ? 0 : 100); i++) {
      const before = (await page.getByTestId("version").textContent()) ?? "";
      // Undo acts once the version list has reached the shown version (it says what it undoes);
      // a Ctrl+Z pressed before that did nothing, and the edits stopped.
      if (i % 2 === 1)
        await waitUntil(
          async () => ((await page.getByTestId("undo-next").textContent()) ?? "").startsWith("Undo:"),
          30_000,
          "undo ready",
        ).catch(() => {});
      const started = Date.now();
      await page.keyboard.press(i % 2 === 0 ? "Delete" : "Control+z");
      input.push(await page.evaluate<number>(KEY_LATENCY));
      const landed = await waitUntil(
        async () => (await page.getByTestId("version").textContent()) !== before,
        30_000,
        "the edit",
      ).then(
        () => true,
        () => false,
      );
      if (!landed) {
        // Seen twice at load average 20–30, with either build: stop the edits, keep what was measured.
        const status = (
          await page
            .locator("[role=status], [role=alert]")
            .allTextContents()
            .catch(() => [])
        ).join(" | ");
        log(`edit ${i + 1} showed no new version within 30 s (status: ${status || "none"}); edits stopped`);
        break;
      }
      edits.push(Date.now() - started);
      if (i % 2 === 1) await selectFirstClip(page);
    }
    return {
      console: path.relative(ROOT, consoleDir),
      loadBefore,
      loadAfter: load(),
      openMs,
      scrollFrameMs: stats(scroll.work),
      scrollIntervalMs: stats(scroll.intervals),
      scrollCpuMsPerFrame: perFrame(used.reduce((sum, [, ms]) => sum + ms, 0)),
      scrollCpuThreads: Object.fromEntries(used.slice(0, 6).map(([k, ms]) => [k, perFrame(ms)])),
      inputLatencyMs: stats(input),
      editToVersionMs: stats(edits),
      edits: edits.length,
    };
  } finally {
    await browser.close();
    if (api) await stopProcess(api.proc);
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  if (TRACE_DIR) await mkdir(TRACE_DIR, { recursive: true });
  const results: Result[] = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const dir of consoles) {
      const r = await measure(dir, round);
      log(`${r.console}: scroll frame p95 ${r.scrollFrameMs.p95} ms, input p95 ${r.inputLatencyMs.p95} ms`);
      results.push(r);
    }
  console.log(JSON.stringify({ clips: CLIPS, tracks: TRACKS, results }, null, 2));
  console.table(
    results.map((r) => ({
      console: r.console,
      load: `${r.loadBefore[0]}→${r.loadAfter[0]}`,
      "open ms": r.openMs,
      "scroll frame p50/p95/max": `${r.scrollFrameMs.p50} / ${r.scrollFrameMs.p95} / ${r.scrollFrameMs.max}`,
      "interval p50/p95": `${r.scrollIntervalMs.p50} / ${r.scrollIntervalMs.p95}`,
      "CPU ms/frame": r.scrollCpuMsPerFrame,
      "input p50/p95": `${r.inputLatencyMs.p50} / ${r.inputLatencyMs.p95}`,
      "edit p50/p95": `${r.editToVersionMs.p50} / ${r.editToVersionMs.p95}`,
    })),
  );
}

await main();
