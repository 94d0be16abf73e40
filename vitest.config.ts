import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts"],
    // model tests run in `pnpm test:models` (vitest.models.config.ts)
    exclude: ["**/node_modules/**", "packages/*/src/**/*.models.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
})
