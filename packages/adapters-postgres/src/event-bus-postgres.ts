/**
 * EventBus over PostgreSQL LISTEN/NOTIFY, so that every engine node on one database hears
 * what any node publishes. One dedicated connection per node LISTENs on the channels its
 * subscribers need (and reconnects, re-LISTENing, when it drops); publishing uses a small
 * pool. Delivery is best effort, as the port says: a message sent while a node is
 * reconnecting is lost to that node.
 */
import { createHash } from "node:crypto"
import { Deferred, Effect, Exit, Layer, Queue, Runtime, Schedule, Stream } from "effect"
import pg from "pg"
import { EventBus } from "@signet/core"

/** Options of the PostgreSQL event bus. */
export interface EventBusPostgresOptions {
  readonly connectionString: string
  /**
   * Namespace of the channels: nodes of one deployment use the same value, deployments (or
   * test runs) sharing a database use different ones. Use the storage schema; default none.
   */
  readonly schema?: string
  /** How many messages a subscriber may fall behind before its oldest are dropped (default 1024). */
  readonly subscriberCapacity?: number
  /** `application_name` of the LISTEN connection, to find it in `pg_stat_activity` (default `signet-event-bus`). */
  readonly applicationName?: string
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more (default build). */
export const MAX_PAYLOAD_BYTES = 7999

// Channel names are identifiers: at most 63 bytes. Short printable topics stay readable; others are hashed.
const READABLE = /^[\x21\x23-\x7e]{1,56}$/

/** The NOTIFY channel of `topic` in namespace `schema`. */
export const channelOf = (topic: string, schema?: string): string => {
  const key = schema === undefined || schema === "" ? topic : `${schema}:${topic}`
  return READABLE.test(key) ? `signet:${key}` : `signet#${createHash("sha256").update(key).digest("hex").slice(0, 48)}`
}

interface Listener {
  /** The connected LISTEN client, absent while (re)connecting. */
  client: pg.Client | undefined
  readonly subscribers: Map<string, Set<Queue.Queue<string>>>
}

/** Runs `text` on the listener, ignoring failures: a broken connection is reported by its `error` event and re-LISTENed on reconnect. */
const listenerQuery = (client: pg.Client, text: string): Effect.Effect<void> =>
  Effect.promise(() => client.query(text)).pipe(
    Effect.asVoid,
    Effect.catchAllDefect(() => Effect.void),
  )

/** The event bus on PostgreSQL LISTEN/NOTIFY; waits for the listening connection before it is ready. */
export const EventBusPostgres = (options: EventBusPostgresOptions): Layer.Layer<EventBus> =>
  Layer.scoped(
    EventBus,
    Effect.gen(function* () {
      const capacity = options.subscriberCapacity ?? 1024
      const runtime = yield* Effect.runtime<never>()
      // runSyncExit never throws: this runs inside pg's event emitter.
      const offer = Runtime.runSyncExit(runtime)
      const lock = yield* Effect.makeSemaphore(1)
      const state: Listener = { client: undefined, subscribers: new Map() }

      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const p = new pg.Pool({ connectionString: options.connectionString, max: 4 })
          p.on("error", (error) => console.error(`[signet] EventBusPostgres pool: idle client error: ${error.message}`))
          return p
        }),
        (p) => Effect.promise(() => p.end()),
      )

      /** One connection's life: connect, LISTEN on every channel in use, serve until the connection drops (then fail, to reconnect). */
      const session = (ready: Deferred.Deferred<void>): Effect.Effect<never, unknown> =>
        Effect.scoped(
          Effect.gen(function* () {
            const closed = yield* Deferred.make<void>()
            const client = yield* Effect.acquireRelease(
              Effect.tryPromise(async () => {
                const c = new pg.Client({
                  connectionString: options.connectionString,
                  keepAlive: true,
                  application_name: options.applicationName ?? "signet-event-bus",
                })
                c.on("error", () => Deferred.unsafeDone(closed, Exit.void))
                c.on("end", () => Deferred.unsafeDone(closed, Exit.void))
                c.on("notification", (message) => {
                  const queues = state.subscribers.get(message.channel)
                  if (queues === undefined) return
                  // Sliding queues never block: a slow subscriber loses its oldest messages instead of holding memory.
                  for (const queue of queues) offer(Queue.offer(queue, message.payload ?? ""))
                })
                try {
                  await c.connect()
                } catch (error) {
                  await c.end().catch(() => undefined)
                  throw error
                }
                return c
              }),
              (c) =>
                Effect.sync(() => {
                  state.client = undefined
                }).pipe(
                  Effect.zipRight(Effect.promise(() => c.end())),
                  Effect.catchAllDefect(() => Effect.void),
                ),
            )
            yield* lock.withPermits(1)(
              Effect.gen(function* () {
                for (const channel of state.subscribers.keys()) {
                  yield* Effect.tryPromise(() => client.query(`LISTEN ${client.escapeIdentifier(channel)}`))
                }
                state.client = client
              }),
            )
            yield* Deferred.succeed(ready, undefined)
            yield* Deferred.await(closed)
            return yield* Effect.fail(new Error("LISTEN connection closed"))
          }),
        )

      const ready = yield* Deferred.make<void>()
      yield* session(ready).pipe(
        Effect.tapError((error) => Effect.logWarning(`EventBusPostgres: LISTEN connection lost, reconnecting: ${String(error)}`)),
        // Exponential back-off capped at 5 s (a union of schedules takes the shorter delay).
        Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
        Effect.forkScoped,
      )
      // The first connection must come up: a node that cannot reach its bus at start is misconfigured.
      yield* Deferred.await(ready).pipe(
        Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "timeout" as const }),
        Effect.catchAll(() => Effect.dieMessage("EventBusPostgres: the LISTEN connection did not come up within 10 s")),
      )

      const register = (channel: string, queue: Queue.Queue<string>) =>
        lock.withPermits(1)(
          Effect.suspend(() => {
            const queues = state.subscribers.get(channel)
            if (queues !== undefined) {
              queues.add(queue)
              return Effect.void
            }
            state.subscribers.set(channel, new Set([queue]))
            const client = state.client
            return client === undefined ? Effect.void : listenerQuery(client, `LISTEN ${client.escapeIdentifier(channel)}`)
          }),
        )

      const unregister = (channel: string, queue: Queue.Queue<string>) =>
        lock.withPermits(1)(
          Effect.suspend(() => {
            const queues = state.subscribers.get(channel)
            if (queues === undefined) return Effect.void
            queues.delete(queue)
            if (queues.size > 0) return Effect.void
            state.subscribers.delete(channel)
            const client = state.client
            return client === undefined ? Effect.void : listenerQuery(client, `UNLISTEN ${client.escapeIdentifier(channel)}`)
          }),
        )

      return EventBus.of({
        publish: (topic, payload) => {
          if (Buffer.byteLength(payload, "utf8") > MAX_PAYLOAD_BYTES) {
            // A programming error (payloads are ids, not documents): loud, not silently dropped.
            return Effect.dieMessage(`EventBusPostgres: payload on ${JSON.stringify(topic)} exceeds ${MAX_PAYLOAD_BYTES} bytes`)
          }
          return Effect.promise(() => pool.query("select pg_notify($1, $2)", [channelOf(topic, options.schema), payload])).pipe(Effect.asVoid)
        },
        subscribe: (topic) =>
          Effect.gen(function* () {
            const channel = channelOf(topic, options.schema)
            const queue = yield* Effect.acquireRelease(Queue.sliding<string>(capacity), Queue.shutdown)
            // LISTEN is in force before subscribe returns, so a message published after it is heard.
            yield* Effect.acquireRelease(register(channel, queue), () => unregister(channel, queue))
            return Stream.fromQueue(queue)
          }),
      })
    }),
  )
