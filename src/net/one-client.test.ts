import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The one module that may call out over HTTP. */
const CLIENT = "net/http-client.ts";

/** Every non-test TypeScript source under `src/`, relative to it with `/`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    const isSource = entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts");
    return isSource ? [relative(SRC, path).split(sep).join("/")] : [];
  });
}

/** The code of a source, without block comments and whole-line `//` comments. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** Calls of a global fetch, and imports of an HTTP client other than the one module. */
const FORBIDDEN = [
  { what: "a fetch call", pattern: /(?<![\w.])fetch\s*\(|globalThis\.fetch|\bwindow\.fetch/ },
  { what: "an import of undici", pattern: /from\s+["']undici["']|import\(\s*["']undici["']\s*\)/ },
  {
    what: "an HTTP client of node:http(s)",
    pattern: /\b(?:https?\.)?(?:request|get)\s*\(\s*\{[^}]*\bhostname\b/,
  },
  { what: "an import of node:https", pattern: /from\s+["']node:https["']/ },
];

describe("one outbound HTTP client", () => {
  it("calls out over HTTP only from net/http-client.ts", () => {
    const files = sources(SRC);
    expect(files).toContain(CLIENT);
    const found = files
      .filter((file) => file !== CLIENT)
      .flatMap((file) => {
        const text = withoutComments(readFileSync(join(SRC, file), "utf8"));
        return FORBIDDEN.filter((f) => f.pattern.test(text)).map((f) => `${file}: ${f.what}`);
      });
    expect(found).toEqual([]);
  });

  it("would notice a global fetch", () => {
    const [call] = FORBIDDEN;
    expect(call?.pattern.test("const res = await fetch(url);")).toBe(true);
    expect(call?.pattern.test("await globalThis.fetch(url)")).toBe(true);
    expect(call?.pattern.test("const fetch = httpFetch; createOpenAI({ fetch })")).toBe(false);
    expect(call?.pattern.test("client.prefetch(x)")).toBe(false);
  });
});
