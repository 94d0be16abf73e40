import { defineConfig } from "vitest/config"
import { sourceConditions } from "./vitest.config.ts"

/**
 * The fast tier, `pnpm test:unit`: no database, no browser, no network, no spawned servers.
 * The rule is by file name: every `*.test.ts` under `packages/<name>/src` except the tiers
 * named by a suffix, which need something outside the process:
 *   .e2e      a running engine, an HTTP server or a child process
 *   .browser  Chromium
 *   .models   the local KYC models (tfjs, the OCR-B classifier): `pnpm test:models`
 *   .fuzz     long property runs: `pnpm fuzz`
 *   .load     many sockets at once
 *   .crash    killed and restarted processes
 *   .db       a database (SQLite file or PostgreSQL)
 * The database adapters' packages hold only database tests.
 * Unit tests may read files and run local verifier CLIs (openssl, pdfsig), which start no server.
 * `pnpm test` still runs every tier but the models.
 */
export default defineConfig({
  ...sourceConditions,
  test: {
    include: ["packages/*/src/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      "packages/*/src/**/*.{e2e,browser,models,fuzz,load,crash,db}.test.ts",
      "packages/adapters-sqlite/**",
      "packages/adapters-postgres/**",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "threads",
    // One module graph per worker: the core and its dependencies load once per worker, not once
    // per file (most of this tier's time was spent collecting). Every test builds its own layers.
    isolate: false,
    // both cores (vitest's default leaves one free)
    maxWorkers: 2,
    minWorkers: 1,
  },
})
