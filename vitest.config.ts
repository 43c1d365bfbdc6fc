import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Tests run the client's sources; the published package is built from them (clients/typescript/dist).
  resolve: {
    alias: { "@cutroom/client": fileURLToPath(new URL("clients/typescript/src/index.ts", import.meta.url)) },
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: Number(process.env.TEST_HOOK_TIMEOUT_MS ?? 60_000),
    pool: "forks",
    // Two cores: ffmpeg-heavy files would starve each other beyond two workers.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**"] },
      },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ],
  },
});
