import { defineConfig } from "vitest/config"

// Workspace packages resolve to their TypeScript sources (the `@signet/source` export condition);
// published consumers get dist/. (The other conditions are Vite's defaults, which a list replaces.)
const source = "@signet/source"

export default defineConfig({
  resolve: { conditions: [source, "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: [source, "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts"],
    // model tests run in `pnpm test:models` (vitest.models.config.ts)
    exclude: ["**/node_modules/**", "packages/*/src/**/*.models.test.ts"],
    // tests that spawn the server or the admin CLI run them from dist/
    globalSetup: ["scripts/vitest-build.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
})
