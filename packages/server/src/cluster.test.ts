import { describe, expect, it } from "vitest"
import { replacementDelayMs } from "./cluster.ts"

describe("replacing a worker that died", () => {
  it("waits a second after one death, twice as long after each further death in a row, never more than 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(replacementDelayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
  })
})
