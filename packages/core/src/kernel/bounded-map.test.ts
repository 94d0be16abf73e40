import { describe, expect, it } from "vitest"
import { setBounded } from "./bounded-map.ts"

describe("setBounded", () => {
  it("keeps at most the limit, dropping the oldest entry; replacing a key drops nothing", () => {
    const map = new Map<string, number>()
    for (const [i, key] of ["a", "b", "c"].entries()) setBounded(map, key, i, 3)
    setBounded(map, "b", 10, 3)
    expect([...map]).toEqual([
      ["a", 0],
      ["b", 10],
      ["c", 2],
    ])
    setBounded(map, "d", 3, 3)
    expect([...map.keys()]).toEqual(["b", "c", "d"])
  })
})
