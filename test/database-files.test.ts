import { globSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseTestFiles } from "./database-files.ts";

const root = path.resolve(import.meta.dirname, "..");

describe("the PostgreSQL pass's file selection", () => {
  const selected = databaseTestFiles(root);

  it("takes every file that starts a test app or database itself, unless it opts out with a reason", () => {
    const callers = globSync(["src/**/*.test.ts", "test/**/*.test.ts"], { cwd: root }).filter((file) => {
      const text = readFileSync(path.join(root, file), "utf8");
      return (
        /\b(startTestApp|createTestDatabase|createScratchDatabase)\(/.test(text) &&
        !text.includes("// postgres-pass: skip — ")
      );
    });
    expect(callers.length).toBeGreaterThan(50);
    expect(callers.filter((file) => !selected.includes(file))).toEqual([]);
    expect(selected).not.toContain("test/client/package.test.ts");
  });

  it("takes files that reach the helper only through other helpers, and leaves the others", () => {
    // crash-retry.test.ts → helpers/worker-crash.ts → helpers/app.ts → helpers/database.ts
    expect(selected).toContain("test/renders/crash-retry.test.ts");
    expect(selected).toContain("test/transcription/captions.test.ts");
    expect(selected).not.toContain("test/console/waveform.test.ts");
    expect(selected).not.toContain("src/domain/render/plan.test.ts");
  });
});
