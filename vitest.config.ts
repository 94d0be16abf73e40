import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

/** Workspace packages export their sources under this condition (published builds resolve `dist/`). */
export const sourceConditions = {
  resolve: { conditions: ["@signet/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@signet/source", "module", "node", "development|production"] } },
}

export default defineConfig({
  ...sourceConditions,
  test: {
    include: ["packages/*/src/**/*.test.ts", "scripts/*.test.ts"],
    // model tests run in `pnpm test:models` (vitest.models.config.ts)
    exclude: ["**/node_modules/**", "packages/*/src/**/*.models.test.ts"],
    // tests that spawn the server or the admin CLI run them from dist/
    globalSetup: ["scripts/vitest-build.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // At least two files at once: most of these tests wait on PostgreSQL, Chromium, child processes
    // or fsync, and vitest's default (cores − 1) runs them one at a time on a 2-core machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    // `expect.poll` waits for what a browser or a server shows; with two files at once a step can
    // take seconds on a loaded machine. A poll still fails if the state never comes (timing limits
    // belong in the benchmarks).
    expect: { poll: { timeout: 15_000 } },
  },
})
