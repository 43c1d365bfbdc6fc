// The browser tests' shared harness: the real server process (`node src/main/api.ts` on a fresh
// data directory) on a free port, Debian's Chromium through playwright-core, screenshots under
// tmp/e2e/ and axe scans. One server and one browser per test file.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

export const run = promisify(execFile);
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = path.resolve("tmp/e2e");

/** The server being started: stopped by {@link stopHarness} even when its start timed out. */
let starting: ChildProcess | null = null;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A running server and browser. */
export interface Harness {
  base: string;
  /**
   * The first-start link that sets the owner's password (printed by the server); empty with a
   * reused server (E2E_SERVER), whose owner signs in with the password already set.
   */
  setupUrl: string;
  browser: Browser;
  server: ChildProcess | null;
}

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Starts the server on `dataDir` and the browser; the console is built first if it is not.
 * `E2E_SERVER=<base URL>` reuses a server that is already running instead (while writing a test
 * on a busy machine, where a first start can take minutes).
 */
export async function startHarness(dataDir: string): Promise<Harness> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/test.sh does)`);
  // scripts/test.sh builds the console through setup.sh; a bare `vitest run` builds it here.
  if (!existsSync("dist/console/index.html")) await run("npm", ["run", "--silent", "build:console"]);
  await mkdir(SHOTS, { recursive: true });
  const reuse = process.env.E2E_SERVER;
  if (reuse)
    return { base: reuse.replace(/\/$/, ""), setupUrl: "", browser: await launchBrowser(), server: null };
  const port = await freePort();
  const server = spawn(process.execPath, ["src/main/api.ts"], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      // Renders and generations run in this process (PGlite is in-process).
      WORKER_IN_PROCESS: "true",
      // The studio's webhook step delivers to a receiver on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "info",
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  starting = server;
  let out = "";
  const printed = await new Promise<string>((resolve, reject) => {
    server.stdout?.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("cutroom api ready")) resolve(out);
    });
    server.stderr?.on("data", (d: Buffer) => {
      out += d;
    });
    server.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  const m = /(http:\/\/\S+\/console\/setup\?token=crp_\w+)/.exec(printed);
  if (!m) throw new Error(`no setup link printed:\n${printed}`);
  const browser = await launchBrowser();
  return { base: `http://127.0.0.1:${port}`, setupUrl: m[1] as string, browser, server };
}

/** Closes the browser and stops the server (also one whose start did not finish). */
export async function stopHarness(h: Harness | undefined): Promise<void> {
  await h?.browser.close();
  const server = h ? h.server : starting;
  starting = null;
  if (!server) return;
  server.kill("SIGTERM");
  await new Promise((r) => (server.exitCode !== null ? r(null) : server.once("exit", r)));
}

/** Saves a full-page screenshot as tmp/e2e/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Fails on serious or critical axe violations, naming them. */
export async function axe(page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}

/**
 * Writes a test clip with ffmpeg: `pattern` (a lavfi video source: testsrc, testsrc2, smptebars)
 * at 320×180, `rate` (e.g. "24000/1001") for `seconds`, H.264 with `+faststart`, and a sine tone
 * of `toneHz` as AAC when given.
 */
export async function testClip(
  file: string,
  opts: { pattern: string; rate: string; seconds: number; toneHz?: number },
): Promise<void> {
  const tone = opts.toneHz
    ? [...["-f", "lavfi", "-i", `sine=frequency=${opts.toneHz}:duration=${opts.seconds}`], "-shortest"]
    : [];
  await run("ffmpeg", [
    ...[
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      `${opts.pattern}=size=320x180:rate=${opts.rate}:duration=${opts.seconds}`,
    ],
    ...tone,
    ...["-c:v", "libx264", "-pix_fmt", "yuv420p", ...(opts.toneHz ? ["-c:a", "aac"] : [])],
    ...["-movflags", "+faststart", file],
  ]);
}

/**
 * Signs in as the server's owner and creates a project named `name`.
 * @returns the project's id (the page shows the project).
 */
export async function signInToNewProject(
  page: Page,
  h: { base(): string; email: string; password: string },
  name: string,
): Promise<string> {
  await page.goto(`${h.base()}/console/sign-in`);
  await page.getByLabel("Email").fill(h.email);
  await page.getByLabel("Password").fill(h.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Projects" }).waitFor();
  await page.getByLabel("Project name").fill(name);
  await page.getByRole("button", { name: "Create project" }).click();
  await page.getByRole("heading", { name }).waitFor();
  return new URL(page.url()).pathname.split("/").at(-1) as string;
}
