/** EventBusInProcess: subscribers hear their own topic, in order, from the moment they subscribe, and a topic left by all starts afresh. */
import { expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Layer, Scope, Stream } from "effect"
import { EventBus, EventBusInProcess } from "./event-bus.ts"

/** The first `n` messages of `stream`, or a test failure after 5 s. */
const take = (stream: Stream.Stream<string>, n: number) =>
  Stream.runCollect(Stream.take(stream, n)).pipe(
    Effect.map(Chunk.toReadonlyArray),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`timed out waiting for ${n} message(s)`) }),
  )

const bus = Layer.build(EventBusInProcess).pipe(Effect.map((ctx) => EventBus.pipe(Effect.provide(ctx))))

it.live("each subscriber hears its own topic only, in order, and every subscriber of a topic hears it", () =>
  Effect.gen(function* () {
    const b = yield* yield* bus
    const first = yield* b.subscribe("user:a")
    const second = yield* b.subscribe("user:a")
    const other = yield* b.subscribe("outbox")
    yield* b.publish("user:b", "nobody listens")
    yield* b.publish("user:a", "one")
    yield* b.publish("outbox", "poke")
    yield* b.publish("user:a", "two")
    expect(yield* take(first, 2)).toEqual(["one", "two"])
    expect(yield* take(second, 2)).toEqual(["one", "two"])
    expect(yield* take(other, 1)).toEqual(["poke"])
  }).pipe(Effect.scoped),
)

it.live("a topic whose subscribers all left hears nothing of the past when subscribed again", () =>
  Effect.gen(function* () {
    const b = yield* yield* bus
    const scope = yield* Scope.make()
    const early = yield* b.subscribe("user:a").pipe(Scope.extend(scope))
    yield* b.publish("user:a", "before")
    expect(yield* take(early, 1)).toEqual(["before"])
    yield* Scope.close(scope, Exit.void)
    yield* b.publish("user:a", "while nobody listens")
    const late = yield* b.subscribe("user:a")
    yield* b.publish("user:a", "after")
    expect(yield* take(late, 1)).toEqual(["after"])
  }).pipe(Effect.scoped),
)
