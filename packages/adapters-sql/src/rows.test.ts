/** Row decoding: a remembered decoder answers what a fresh decode would, whatever changed the row. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { DbBigInt, DbStringArray, decodeEach, decodeRow, decodeRowRemembered } from "./rows.ts"

const Row = Schema.Struct({ id: DbBigInt, name: Schema.String, origins: DbStringArray })

/** `Row` with a count of the decodes it ran. */
const countingRow = () => {
  const decodes = { n: 0 }
  const counted = Schema.transform(Row, Schema.typeSchema(Row), {
    strict: true,
    decode: (r) => {
      decodes.n++
      return r
    },
    encode: (r) => r,
  })
  return { counted, decodes }
}

describe("decodeRowRemembered", () => {
  it.effect("an identical row gives the value decoded before; a row changed in any column is decoded afresh", () =>
    Effect.gen(function* () {
      const { counted, decodes } = countingRow()
      const decode = decodeRowRemembered(counted, "id")
      const row = { id: 1, name: "RP", origins: '["https://a.example"]' }
      const first = yield* decode(row)
      expect(first).toEqual({ id: 1, name: "RP", origins: ["https://a.example"] })
      expect(yield* decode({ ...row })).toBe(first)
      expect(decodes.n).toBe(1)
      // another node renamed it, then added an origin: each read shows the row as it is
      expect(yield* decode({ ...row, name: "Renamed" })).toEqual({ id: 1, name: "Renamed", origins: ["https://a.example"] })
      expect(yield* decode({ ...row, name: "Renamed", origins: '["https://a.example","https://b.example"]' })).toEqual({
        id: 1,
        name: "Renamed",
        origins: ["https://a.example", "https://b.example"],
      })
      // a column more or less is another row
      expect(yield* decode({ ...row, extra: null })).toEqual(first)
      expect(decodes.n).toBe(4)
      // the driver's object changed after the read does not change what is remembered
      const mutable: Record<string, unknown> = { id: 2, name: "Two", origins: "[]" }
      yield* decode(mutable)
      mutable["name"] = "Changed in place"
      expect(yield* decode(mutable)).toEqual({ id: 2, name: "Changed in place", origins: [] })
    }),
  )

  it.effect("a row that does not decode is a defect, remembered or not", () =>
    Effect.gen(function* () {
      const decode = decodeRowRemembered(Row, "id")
      yield* decode({ id: 3, name: "Three", origins: "[]" })
      const exit = yield* Effect.exit(decode({ id: 3, name: 3, origins: "[]" }))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
    }),
  )

  it.effect("keeps at most `capacity` keys, dropping the oldest", () =>
    Effect.gen(function* () {
      const { counted, decodes } = countingRow()
      const decode = decodeRowRemembered(counted, "id", 2)
      const row = (id: number) => ({ id, name: `n${id}`, origins: "[]" })
      yield* decode(row(1))
      yield* decode(row(2))
      yield* decode(row(3))
      expect(decodes.n).toBe(3)
      yield* decode(row(3))
      yield* decode(row(2))
      expect(decodes.n).toBe(3)
      yield* decode(row(1))
      expect(decodes.n).toBe(4)
    }),
  )
})

describe("decodeEach", () => {
  const rows = [
    { id: 1, name: "One", origins: "[]" },
    { id: "2", name: "Two", origins: '["https://b.example"]' },
  ]

  it.effect("answers what Effect.forEach would: every row in order, from an immediate decoder or any other", () =>
    Effect.gen(function* () {
      const decode = decodeRow(Row)
      const expected = yield* Effect.forEach(rows, decode)
      expect(yield* decodeEach(rows, decode)).toEqual(expected)
      expect(expected.map((r) => r.id)).toEqual([1, 2])
      // a decoder that waits (not an Exit) is run by Effect.forEach
      const later = (row: unknown) => Effect.flatMap(Effect.yieldNow(), () => decode(row))
      expect(yield* decodeEach(rows, later)).toEqual(expected)
      expect(yield* decodeEach([], decode)).toEqual([])
    }),
  )

  it.effect("a row that does not decode is a defect, as with Effect.forEach", () =>
    Effect.gen(function* () {
      const broken = [...rows, { id: 3, name: 3, origins: "[]" }]
      const exit = yield* Effect.exit(decodeEach(broken, decodeRow(Row)))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
    }),
  )
})
