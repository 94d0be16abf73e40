/** EventBus port: publish and subscribe across engine nodes. */
import { Context, Effect, Layer, PubSub, type Scope, Stream } from "effect"

/** A message on a topic. */
export interface BusMessage {
  readonly topic: string
  readonly payload: string
}

/** Fan-out of messages to every subscriber on every node; delivery is best effort (durable state lives in storage). */
export class EventBus extends Context.Tag("@signet/core/EventBus")<
  EventBus,
  {
    /** Sends `payload` to every current subscriber of `topic`. */
    readonly publish: (topic: string, payload: string) => Effect.Effect<void>
    /** Messages on `topic` from the moment of subscription until the scope closes. */
    readonly subscribe: (topic: string) => Effect.Effect<Stream.Stream<string>, never, Scope.Scope>
  }
>() {}

/** One-process bus (the SQLite default), on a bounded sliding PubSub so a slow subscriber cannot hold memory. */
export const EventBusInProcess: Layer.Layer<EventBus> = Layer.effect(
  EventBus,
  Effect.gen(function* () {
    const hub = yield* PubSub.sliding<BusMessage>(1024)
    return {
      publish: (topic, payload) => PubSub.publish(hub, { topic, payload }).pipe(Effect.asVoid),
      subscribe: (topic) =>
        PubSub.subscribe(hub).pipe(
          Effect.map((queue) =>
            Stream.fromQueue(queue).pipe(
              Stream.filter((m) => m.topic === topic),
              Stream.map((m) => m.payload),
            ),
          ),
        ),
    }
  }),
)
