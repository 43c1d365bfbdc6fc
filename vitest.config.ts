import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { databaseTestFiles } from "./test/database-files.ts";

const root = fileURLToPath(new URL(".", import.meta.url));

// TEST_DATABASE_FILES_ONLY=1 (the PostgreSQL pass of scripts/test.sh): one project of the test
// files whose outcome can depend on TEST_DATABASE_URL (test/database-files.ts); the others would
// only repeat the first pass.
const projects = process.env.TEST_DATABASE_FILES_ONLY
  ? [{ extends: true, test: { name: "database", include: databaseTestFiles(root) } }]
  : [
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**"] },
      },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ];

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
    projects,
  },
});
