import { describe, expect, it } from "@effect/vitest"
import { Random } from "@signet/core"
import { Effect } from "effect"
import { RandomWebCrypto } from "./random-web-crypto.ts"

describe("RandomWebCrypto", () => {
  it.effect("hands out each drawn byte once: 20,000 ids of 16 bytes across many pool refills are all different, large draws too", () =>
    Effect.gen(function* () {
      const random = yield* Random
      const ids = new Set<string>()
      for (let i = 0; i < 20_000; i++) {
        const id = yield* random.bytes(16 + (i % 17))
        expect(id.length).toBe(16 + (i % 17))
        ids.add(Buffer.from(id).toString("hex"))
      }
      expect(ids.size).toBe(20_000)
      const large = yield* random.bytes(10_000)
      expect(large.length).toBe(10_000)
      // Not zeros (a wiped pool handed out again would be): 10,000 random bytes are never all zero.
      expect(large.some((b) => b !== 0)).toBe(true)
    }).pipe(Effect.provide(RandomWebCrypto)),
  )

  it.effect("a drawn value is the caller's own: changing it changes no later draw", () =>
    Effect.gen(function* () {
      const random = yield* Random
      const first = yield* random.bytes(32)
      first.fill(0)
      const next = yield* random.bytes(32)
      expect(next.some((b) => b !== 0)).toBe(true)
      expect(Buffer.from(next).equals(Buffer.alloc(32))).toBe(false)
    }).pipe(Effect.provide(RandomWebCrypto)),
  )
})
