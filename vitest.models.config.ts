import { defineConfig } from "vitest/config"

const source = "@signet/source"

// The slow tests that run real models (OCR, face detection): `pnpm test:models`, not part of `pnpm test`.
export default defineConfig({
  resolve: { conditions: [source, "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: [source, "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/src/**/*.models.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // one process: the models load once and the tests share them
    poolOptions: { forks: { singleFork: true } },
  },
})
