import { defineConfig } from "vitest/config"

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources (the `@signet/source` export condition).
  resolve: { conditions: ["@signet/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@signet/source", "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "scripts/*.test.ts"],
    // model tests run in `pnpm test:models` (vitest.models.config.ts)
    exclude: ["**/node_modules/**", "packages/*/src/**/*.models.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
})
