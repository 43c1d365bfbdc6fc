import path from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console is a single-page app served by the API process under /console (see
// src/http/routes/console/static.ts); `npm run build:console` writes it to dist/console.
export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: path.join(import.meta.dirname, "..", "dist", "console"),
    emptyOutDir: true,
    assetsDir: "assets",
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { "/api": "http://127.0.0.1:3000", "/files": "http://127.0.0.1:3000" } },
});
