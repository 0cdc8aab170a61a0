/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Tauri loads the built files from ui/dist with a strict CSP: no remote content, relative base.
// ARBOR_UI_PROFILE=1: React's profiling build, so the perf probe gets each region's render time
// (components/PerfRegion.tsx). Only for measuring; the app ships the normal build.
const profiling = process.env.ARBOR_UI_PROFILE === "1";

export default defineConfig({
  base: "./",
  plugins: [react()],
  resolve: profiling ? { alias: { "react-dom/client": "react-dom/profiling" } } : {},
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024 },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    restoreMocks: true,
  },
});
