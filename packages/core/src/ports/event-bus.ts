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

/**
 * One-process bus (the SQLite default): one bounded sliding PubSub per topic that has subscribers,
 * so a slow subscriber cannot hold memory and a message wakes only its own topic's subscribers
 * (a user's event feed is not woken by the outbox's pokes, nor the delivery worker by every
 * user's events). A topic's hub goes when its last subscriber does.
 */
export const EventBusInProcess: Layer.Layer<EventBus> = Layer.sync(EventBus, () => {
  const topics = new Map<string, { readonly hub: PubSub.PubSub<string>; subscribers: number }>()
  // The hub is made first and the map is read and written in one synchronous step: no other fiber runs in between.
  const join = (topic: string) =>
    Effect.flatMap(PubSub.sliding<string>(1024), (fresh) =>
      Effect.sync(() => {
        const entry = topics.get(topic) ?? { hub: fresh, subscribers: 0 }
        entry.subscribers++
        topics.set(topic, entry)
        return entry
      }),
    )
  const leave = (topic: string, entry: { readonly hub: PubSub.PubSub<string>; subscribers: number }) =>
    Effect.sync(() => {
      entry.subscribers--
      if (entry.subscribers === 0 && topics.get(topic) === entry) topics.delete(topic)
    })
  return {
    publish: (topic, payload) =>
      Effect.suspend(() => {
        const entry = topics.get(topic)
        return entry === undefined ? Effect.void : PubSub.publish(entry.hub, payload).pipe(Effect.asVoid)
      }),
    subscribe: (topic) =>
      Effect.acquireRelease(join(topic), (entry) => leave(topic, entry)).pipe(
        Effect.flatMap((entry) => PubSub.subscribe(entry.hub)),
        Effect.map((queue) => Stream.fromQueue(queue)),
      ),
  }
})
