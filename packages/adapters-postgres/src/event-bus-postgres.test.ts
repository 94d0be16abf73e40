/** EventBusPostgres: two nodes on one database hear each other; topics and namespaces stay apart. */
import { randomBytes } from "node:crypto"
import { expect, it } from "@effect/vitest"
import { Cause, Chunk, Effect, Exit, Layer, Stream } from "effect"
import pg from "pg"
import { EventBus } from "@signet/core"
import { describePostgres, findPostgres } from "@signet/testkit/storage"
import { channelOf, EventBusPostgres, MAX_PAYLOAD_BYTES } from "./index.ts"

const url = await findPostgres()

/** The first `n` messages of `stream`, or a test failure after 5 s. */
const take = (stream: Stream.Stream<string>, n: number) =>
  Stream.runCollect(Stream.take(stream, n)).pipe(
    Effect.map(Chunk.toReadonlyArray),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`timed out waiting for ${n} message(s)`) }),
  )

describePostgres(url, "EventBusPostgres", (connectionString) => {
  // Each test uses its own namespace, so parallel runs on the same database never hear each other.
  const namespace = () => `signet_test_${randomBytes(6).toString("hex")}`
  const node = (schema: string, extra: { subscriberCapacity?: number; applicationName?: string } = {}) =>
    Layer.build(EventBusPostgres({ connectionString, schema, ...extra })).pipe(Effect.map((ctx) => EventBus.pipe(Effect.provide(ctx))))

  it.live("a publish on one node reaches a subscriber on another, in order", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns)
      const onB = yield* b.subscribe("signing.completed")
      const onA = yield* a.subscribe("signing.completed")
      for (const payload of ["one", "two", "three ✓"]) yield* a.publish("signing.completed", payload)
      expect(yield* take(onB, 3)).toEqual(["one", "two", "three ✓"])
      expect(yield* take(onA, 3)).toEqual(["one", "two", "three ✓"])
    }).pipe(Effect.scoped),
  )

  it.live("subscribers hear only their topic, and only their namespace", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns)
      const stranger = yield* yield* node(namespace())
      const onB = yield* b.subscribe("t1")
      yield* stranger.publish("t1", "from another deployment")
      yield* a.publish("t2", "other topic")
      yield* a.publish("t1", "mine")
      expect(yield* take(onB, 1)).toEqual(["mine"])
    }).pipe(Effect.scoped),
  )

  it.live("long and unusual topics and payloads up to the limit go through", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns)
      const topic = `webhooks/${"x".repeat(100)} "quoted" ünïcode`
      expect(Buffer.byteLength(channelOf(topic, ns))).toBeLessThanOrEqual(63)
      const onB = yield* b.subscribe(topic)
      const big = "é".repeat(Math.floor(MAX_PAYLOAD_BYTES / 2)) + "a"
      expect(Buffer.byteLength(big)).toBe(MAX_PAYLOAD_BYTES)
      yield* a.publish(topic, big)
      yield* a.publish(topic, "")
      expect(yield* take(onB, 2)).toEqual([big, ""])
    }).pipe(Effect.scoped),
  )

  it.live("a payload over the limit is a defect, not a silent drop", () =>
    Effect.gen(function* () {
      const a = yield* yield* node(namespace())
      const exit = yield* Effect.exit(a.publish("t", "x".repeat(MAX_PAYLOAD_BYTES + 1)))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    }).pipe(Effect.scoped),
  )

  it.live("a slow subscriber keeps only the newest messages (sliding queue)", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns, { subscriberCapacity: 3 })
      const slow = yield* b.subscribe("t")
      // Same node, so one notification reaches both queues in the same callback; a sliding queue never drops its newest,
      // so once the witness sees "end", `slow` holds it too.
      const witness = yield* b.subscribe("t")
      for (const m of Array.from({ length: 10 }, (_, i) => `m${i}`)) yield* a.publish("t", m)
      yield* a.publish("t", "end")
      yield* Stream.runDrain(Stream.takeUntil(witness, (m) => m === "end")).pipe(Effect.timeout("5 seconds"))
      expect(yield* take(slow, 3)).toEqual(["m8", "m9", "end"])
    }).pipe(Effect.scoped),
  )

  it.live("after its scope closes a subscription stops; others on the node carry on", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns)
      const kept = yield* b.subscribe("t")
      yield* Effect.scoped(b.subscribe("t"))
      yield* Effect.scoped(b.subscribe("gone"))
      yield* a.publish("t", "still here")
      expect(yield* take(kept, 1)).toEqual(["still here"])
    }).pipe(Effect.scoped),
  )

  it.live("the listener reconnects and re-listens after its connection is killed", () =>
    Effect.gen(function* () {
      const ns = namespace()
      const applicationName = `signet-bus-${ns}`
      const a = yield* yield* node(ns)
      const b = yield* yield* node(ns, { applicationName })
      const onB = yield* b.subscribe("t")
      yield* Effect.promise(async () => {
        const admin = new pg.Client({ connectionString })
        await admin.connect()
        try {
          const killed = await admin.query("select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1", [applicationName])
          expect(killed.rowCount).toBe(1)
        } finally {
          await admin.end()
        }
      })
      // Messages sent while it reconnects are lost (best effort): publish until one arrives.
      const heard = yield* Effect.raceFirst(take(onB, 1), a.publish("t", "after reconnect").pipe(Effect.zipRight(Effect.sleep("100 millis")), Effect.forever))
      expect(heard).toEqual(["after reconnect"])
    }).pipe(Effect.scoped),
  )
})
