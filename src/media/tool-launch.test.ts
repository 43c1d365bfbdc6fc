import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { orphanSafeLaunch, spawnTool, toolNotExecuted } from "./tool-launch.ts";

const hasSetpriv = existsSync("/usr/bin/setpriv") || existsSync("/bin/setpriv");

/** Whether a process exists and is not a zombie. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^\d+ \(.*\) Z/.test(stat);
}

describe.skipIf(process.platform !== "linux" || !hasSetpriv)("orphanSafeLaunch", () => {
  it("launches a tool that dies when the process that started it is SIGKILLed", async () => {
    // A parent that starts `sleep 60` the way workers start ffmpeg, prints its pid and waits.
    const parent = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { spawn } from "node:child_process";
         import { orphanSafeLaunch } from ${JSON.stringify(new URL("./tool-launch.ts", import.meta.url).href)};
         const l = orphanSafeLaunch("sleep", ["60"]);
         const c = spawn(l.command, l.args, { stdio: "ignore" });
         console.log(c.pid);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const [line] = (await once(parent.stdout, "data")) as [Buffer];
    const pid = Number(String(line).trim());
    expect(await isAlive(pid)).toBe(true);
    // The launched process is the tool itself (setpriv execs it), not a wrapper around it.
    await expect.poll(async () => (await readFile(`/proc/${pid}/comm`, "utf8")).trim()).toBe("sleep");
    parent.kill("SIGKILL");
    await once(parent, "exit");
    await expect.poll(() => isAlive(pid), { timeout: 2_000 }).toBe(false);
  });

  it("reports a tool that is not there as not executed", async () => {
    const l = orphanSafeLaunch("cutroom-no-such-tool", ["-v"]);
    const child = spawn(l.command, l.args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += String(d);
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(toolNotExecuted(code, stderr)).toBe(true);
    expect(toolNotExecuted(1, "ffmpeg: Invalid argument")).toBe(false);
  });
});

describe("spawnTool", () => {
  it("starts the tool and hands back its pipes", async () => {
    const child = spawnTool("echo", ["launched"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(0);
    expect(out.trim()).toBe("launched");
  });

  it("is the only way source outside src/media starts a child process", () => {
    // Test fixtures that make media with ffmpeg (`test-fixtures.ts`) run only under tests.
    const src = dirname(dirname(fileURLToPath(import.meta.url)));
    const spawning = readdirSync(src, { recursive: true, encoding: "utf8" })
      .map((path) => path.split("\\").join("/"))
      .filter(
        (path) =>
          path.endsWith(".ts") &&
          !path.endsWith(".test.ts") &&
          !path.endsWith("test-fixtures.ts") &&
          !path.startsWith("media/"),
      )
      .filter((path) =>
        /^import\s+(?!type\s)[^;]*from\s+["'](node:)?child_process["']/m.test(
          readFileSync(join(src, path), "utf8"),
        ),
      );
    expect(spawning).toEqual([]);
  });
});
