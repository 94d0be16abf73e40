import { defineConfig } from "vitest/config"
import { sourceConditions } from "./vitest.config.ts"

// The slow tests that run real models (OCR, face detection): `pnpm test:models`, not part of `pnpm test`.
export default defineConfig({
  ...sourceConditions,
  test: {
    include: ["packages/*/src/**/*.models.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // one process: the models load once and the tests share them
    poolOptions: { forks: { singleFork: true } },
  },
})
