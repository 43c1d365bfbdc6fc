// The client tests must compile without type assertions: the generated types alone have to carry
// every call and answer (npm run typecheck compiles them). This keeps it so.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** `source` without comments and the contents of string and template literals. */
function code(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``")
    .replace(/"(?:\\.|[^"\\\n])*"/g, '""')
    .replace(/'(?:\\.|[^'\\\n])*'/g, "''")
    .replace(/\/\/.*$/gm, "");
}

/** Whether a line of code holds a type assertion. */
const isAssertion = (line: string) =>
  /[\w)\]}]\s+as\s+[\w{[(]/.test(line) || /(?:^|[=(,:]\s*)<[A-Z]\w*>\s*[\w(]/.test(line);

describe("the client tests", () => {
  it("use no type assertion (`x as T`, `as const`, `<T>x`)", async () => {
    const dir = path.resolve("test/client");
    const files = (await readdir(dir)).filter((f) => f.endsWith(".ts") && f !== "no-casts.test.ts");
    expect(files).toContain("journey.test.ts");
    const found: string[] = [];
    for (const file of files) {
      const lines = code(await readFile(path.join(dir, file), "utf8")).split("\n");
      lines.forEach((line, i) => {
        if (isAssertion(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
    // The check sees assertions, and not the word "as" in comments or strings.
    for (const line of [
      "const x = y as Foo;",
      "f(body as unknown);",
      "const k = [1] as const;",
      "g(<Foo>y)",
    ]) {
      expect(isAssertion(code(line)), line).toBe(true);
    }
    expect(isAssertion(code('it("renders as png", () => {}); // typed as T'))).toBe(false);
  });
});
