import { defineConfig } from "vitest/config"

// The slow tests that run real models (OCR, face detection): `pnpm test:models`, not part of `pnpm test`.
export default defineConfig({
  // Workspace packages resolve to their TypeScript sources (the `@signet/source` export condition).
  resolve: { conditions: ["@signet/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@signet/source", "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/src/**/*.models.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // one process: the models load once and the tests share them
    poolOptions: { forks: { singleFork: true } },
  },
})
