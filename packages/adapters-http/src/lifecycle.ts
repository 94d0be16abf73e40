/**
 * The engine's shutdown state, shared by the parts that must wind down gracefully: readiness
 * answers 503 once draining begins, event streams end with a reconnect hint, and the delivery
 * worker finishes its round in hand and stops.
 */
import { Context, Deferred, Effect, Layer } from "effect"

/** Draining has begun (`stopping`); the delivery worker has stopped (`workerStopped`). */
export class Lifecycle extends Context.Tag("@signet/adapters-http/Lifecycle")<
  Lifecycle,
  {
    readonly stopping: Deferred.Deferred<void>
    readonly workerStopped: Deferred.Deferred<void>
  }
>() {}

/** A fresh lifecycle: serving, worker running. */
export const LifecycleLive = Layer.effect(
  Lifecycle,
  Effect.all({ stopping: Deferred.make<void>(), workerStopped: Deferred.make<void>() }).pipe(Effect.map((l) => Lifecycle.of(l))),
)

/** True once draining has begun. */
export const isDraining = Effect.flatMap(Lifecycle, (l) => Deferred.isDone(l.stopping))

/** How long a client should wait before reconnecting an event stream that a draining node ended (ms). */
export const RECONNECT_HINT_MS = 1000
