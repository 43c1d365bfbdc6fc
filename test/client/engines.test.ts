import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The client claims a Node range in its `engines`; every package it installs at runtime must
// admit that whole range, or `npm install @cutroom/client` on the oldest claimed Node warns
// EBADENGINE (and fails under `engine-strict`). Read from node_modules as npm resolves them.
const clientDir = path.resolve("clients/typescript");

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
}

/** The installed folder of `name` as Node resolves it from `fromDir` (its node_modules, then its parents'). */
function packageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed (from ${fromDir})`);
  }
}

/** `major.minor.patch` of a version or partial version (`20` → [20, 0, 0]). */
function parseVersion(text: string): Version {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a version: ${text}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

type Version = [number, number, number];

const compare = ([a0, a1, a2]: Version, [b0, b1, b2]: Version) =>
  (a0 - b0) * 1e8 + (a1 - b1) * 1e4 + (a2 - b2);

/**
 * Whether the Node range `engines` admits every version from `min` up: true when one of its
 * `||` alternatives is a lone `>=x.y.z` at or below `min`, or is `*`/empty. Any other form
 * (an upper bound, a caret) throws, so that a new dependency's range is looked at by hand.
 */
function admitsFrom(engines: string, min: Version): boolean {
  return engines.split("||").some((alternative) => {
    const range = alternative.trim();
    if (range === "" || range === "*" || range === "x") return true;
    const m = /^>=\s*(\S+)$/.exec(range);
    if (!m) throw new Error(`engines range "${engines}" is not of a form this test reads; check it by hand`);
    return compare(parseVersion(m[1] ?? ""), min) <= 0;
  });
}

/** Every runtime dependency of the client, direct and transitive, as installed. */
function runtimeDependencies(): Manifest[] {
  const seen = new Map<string, Manifest>();
  const visit = (fromDir: string, deps: Record<string, string>) => {
    for (const name of Object.keys(deps)) {
      const dir = packageDir(name, fromDir);
      if (seen.has(dir)) continue;
      const manifest = readManifest(dir);
      seen.set(dir, manifest);
      visit(dir, manifest.dependencies ?? {});
    }
  };
  visit(clientDir, readManifest(clientDir).dependencies ?? {});
  return [...seen.values()];
}

describe("the client's dependencies", () => {
  it("admit the client's own engines claim", () => {
    const claim = readManifest(clientDir).engines?.node ?? "";
    const m = /^>=\s*(\S+)$/.exec(claim);
    expect(m, `the client claims node "${claim}"`).not.toBeNull();
    const min = parseVersion(m?.[1] ?? "");
    const deps = runtimeDependencies();
    expect(deps.map((d) => d.name)).toEqual(expect.arrayContaining(["eventsource-parser", "openapi-fetch"]));
    const refusing = deps
      .filter((d) => d.engines?.node !== undefined && !admitsFrom(d.engines.node, min))
      .map((d) => `${d.name}@${d.version} needs node ${d.engines?.node}`);
    expect(refusing, `the client claims node ${claim}`).toEqual([]);
  });

  it("the check refuses a dependency that needs a newer Node", () => {
    expect(admitsFrom(">=22.12", [20, 0, 0])).toBe(false);
    expect(admitsFrom(">=18.0.0", [20, 0, 0])).toBe(true);
    expect(admitsFrom(">=22 || >=14", [20, 0, 0])).toBe(true);
    expect(admitsFrom("*", [20, 0, 0])).toBe(true);
    expect(() => admitsFrom("^20.10", [20, 0, 0])).toThrow("check it by hand");
  });
});
