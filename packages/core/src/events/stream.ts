/**
 * The live event stream of a user's signing requests (`GET /v2/events`). The event log in
 * storage is the truth; the EventBus only pokes subscribers (on every node) after a commit,
 * and a three-second tick re-reads the log, so an event is never missed, a reconnect with
 * `Last-Event-ID` resumes exactly, and a lost poke costs at most one tick.
 */
import { type Context, Deferred, Effect, Fiber, FiberId, Runtime, type Scope, Stream } from "effect"
import { EventBus } from "../ports/event-bus.ts"
import { SigningEvents } from "../signing/ports.ts"
import type { SigningEvent } from "../signing/model.ts"

/** The EventBus topic that pokes a user's streams. */
export const userEventsTopic = (userId: string): string => `signing-events:${userId}`

/** Tells every node that `userId` has new events (call after the commit that recorded them). */
export const notifyUserEvents = (userId: string) => Effect.flatMap(EventBus, (bus) => bus.publish(userEventsTopic(userId), ""))

/** `YYYY-MM-DD HH:MM:SS` in UTC, as the spec's event record has it. */
export const recordTime = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19)

/** The spec's signing-request event record. */
export const eventRecord = (e: SigningEvent) => ({
  id: e.subjectId,
  status: e.status,
  document_hash: e.documentHash,
  created_at: recordTime(e.createdAt),
  signed_at: e.signedAt === null ? null : recordTime(e.signedAt),
  error_message: e.errorMessage,
})

/** One server-sent-events frame. */
export const sseFrame = (event: string, data: unknown, id?: number): string =>
  `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** A comment frame that keeps quiet connections (and proxies) alive. */
export const KEEP_ALIVE = ": keep-alive\n\n"

/** How often a user's feed re-reads the log (a lost poke costs at most this). */
export const STREAM_TICK = "3 seconds"

const PAGE = 200

/**
 * Every how many ticks a stream with nothing sent gets a keep-alive (15 s): often enough for
 * proxies that close idle connections after 30 to 60 s, rare enough that thousands of idle
 * streams cost little.
 */
const KEEP_ALIVE_TICKS = 5

/**
 * Where a stream's frames go. `push` answers false when the sink will take no more (its reader is
 * too far behind): the stream is then ended, and the client resumes exactly with Last-Event-ID.
 * `end` is called once when the feed itself ends (storage gone).
 */
export interface FrameSink {
  readonly push: (frame: string) => boolean
  readonly end: () => void
}

/** One stream of a user on this node: its filter, how far it has been sent, where its frames go. */
interface Subscriber {
  readonly clientId: string | null
  cursor: number
  readonly sink: FrameSink
  /** set once its catch-up read is done; feed reads skip it until then */
  joined: boolean
}

/**
 * The shared feed of one user's events on this node: one bus subscription, one tick and one read
 * of the log per poke, whatever the number of that user's streams; each stream takes what is
 * after its own cursor and passes its filter. The lock keeps reads and joins in one order.
 */
interface UserFeed {
  readonly subscribers: Set<Subscriber>
  readonly lock: Effect.Semaphore
  cursor: number
  /** done once the feed is subscribed to the bus and knows where the log ends */
  readonly ready: Deferred.Deferred<void>
  fiber: Fiber.RuntimeFiber<void> | undefined
}

// Feeds per engine (keyed by its event log), per user; a feed lives while it has subscribers.
const feedsByLog = new WeakMap<object, Map<string, UserFeed>>()

const offer = (feed: UserFeed, subscriber: Subscriber, frame: string) => {
  if (!subscriber.sink.push(frame)) {
    // Too far behind: end its stream rather than hold memory or drop an event; the client resumes exactly.
    feed.subscribers.delete(subscriber)
    subscriber.sink.end()
  }
}

/** Reads the log after `after` and hands each event to the subscribers it is for (those not yet past it). */
const deliver = (log: Context.Tag.Service<SigningEvents>, userId: string, feed: UserFeed, targets: ReadonlyArray<Subscriber>, after: number, quiet: boolean) =>
  Effect.gen(function* () {
    let cursor = after
    const sent = new Set<Subscriber>()
    for (;;) {
      const page = yield* log.listForUser(userId, cursor, PAGE)
      for (const e of page) {
        let frame: string | undefined
        for (const subscriber of targets) {
          if (e.seq <= subscriber.cursor) continue
          subscriber.cursor = e.seq
          if (subscriber.clientId !== null && e.clientId !== subscriber.clientId) continue
          frame ??= sseFrame(e.type, eventRecord(e), e.seq)
          offer(feed, subscriber, frame)
          sent.add(subscriber)
        }
        cursor = e.seq
      }
      if (page.length < PAGE) break
    }
    if (quiet) for (const subscriber of targets) if (!sent.has(subscriber)) offer(feed, subscriber, KEEP_ALIVE)
    return cursor
  })

/**
 * The frames of a user's stream: `connected`, then every event after `lastEventId` (or, for
 * a new client, after the newest event at connection time), as they are recorded. With
 * `clientId`, only the events of that RP: a token issued to one RP never sees the user's
 * requests at another (docs/authorization.md); null (Signet's console) shows them all.
 */
export const subscribeUserEvents = (
  userId: string,
  lastEventId: number | null,
  clientId: string | null,
  sink: FrameSink,
): Effect.Effect<void, never, SigningEvents | EventBus | Scope.Scope> =>
  Effect.gen(function* () {
    const log = yield* SigningEvents
    const bus = yield* EventBus
    const runtime = yield* Effect.runtime<never>()
    const start = lastEventId ?? (yield* log.lastSeqForUser(userId))
    const subscriber: Subscriber = { clientId, cursor: start, sink, joined: false }
    // Finding or starting the feed and registering are one synchronous step, so a feed is never
    // retired between a subscriber finding it and registering with it.
    const feed = yield* Effect.sync(() => {
      let feeds = feedsByLog.get(log)
      if (feeds === undefined) {
        feeds = new Map()
        feedsByLog.set(log, feeds)
      }
      const known = feeds.get(userId)
      if (known !== undefined) {
        known.subscribers.add(subscriber)
        return known
      }
      const created: UserFeed = {
        subscribers: new Set([subscriber]),
        lock: Effect.unsafeMakeSemaphore(1),
        cursor: 0,
        ready: Deferred.unsafeMake(FiberId.none),
        fiber: undefined,
      }
      const all = feeds
      feeds.set(userId, created)
      created.fiber = Runtime.runFork(runtime)(
        Effect.scoped(
          Effect.gen(function* () {
            // Subscribed before the first read of the log, so nothing recorded in between can be missed.
            const pokes = yield* bus.subscribe(userEventsTopic(userId))
            created.cursor = yield* log.lastSeqForUser(userId)
            yield* Deferred.succeed(created.ready, undefined)
            const triggers = Stream.merge(pokes.pipe(Stream.as(false)), Stream.tick(STREAM_TICK).pipe(Stream.drop(1), Stream.as(true)))
            let ticks = 0
            yield* Stream.runForEach(triggers, (tick) =>
              created.lock.withPermits(1)(
                Effect.gen(function* () {
                  const keepAlive = tick && ++ticks % KEEP_ALIVE_TICKS === 0
                  const joined = [...created.subscribers].filter((x) => x.joined)
                  created.cursor = yield* deliver(log, userId, created, joined, created.cursor, keepAlive)
                }),
              ),
            )
          }),
        ).pipe(
          // Storage gone (shutdown, outage): end every stream of the feed; clients resume with Last-Event-ID.
          Effect.catchAllCause(() => Effect.void),
          Effect.ensuring(
            Effect.sync(() => {
              if (all.get(userId) === created) all.delete(userId)
              for (const x of created.subscribers) x.sink.end()
              created.subscribers.clear()
            }),
          ),
        ),
      )
      return created
    })
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        feed.subscribers.delete(subscriber)
        const feeds = feedsByLog.get(log)
        if (feed.subscribers.size > 0 || feeds?.get(userId) !== feed) return Effect.void
        feeds.delete(userId)
        return feed.fiber === undefined ? Effect.void : Fiber.interrupt(feed.fiber)
      }),
    )
    if (!sink.push(sseFrame("connected", { status: "connected", last_event_id: start }, start))) return
    // Joining: after the feed is subscribed, its own catch-up read (from its cursor); from then on it takes its share of every feed read.
    yield* Deferred.await(feed.ready).pipe(Effect.raceFirst(feed.fiber === undefined ? Effect.never : Fiber.await(feed.fiber)))
    yield* feed.lock.withPermits(1)(
      Effect.gen(function* () {
        yield* deliver(log, userId, feed, [subscriber], start, false)
        subscriber.cursor = Math.max(subscriber.cursor, feed.cursor)
        subscriber.joined = true
      }),
    )
  })

/**
 * The frames of a user's stream as an Effect Stream (see `subscribeUserEvents`): `connected`,
 * then every event after `lastEventId` (or after the newest at connection time), as recorded.
 */
export const userEventStream = (userId: string, lastEventId: number | null, clientId: string | null = null) =>
  Stream.asyncScoped<string, never, SigningEvents | EventBus>((emit) =>
    subscribeUserEvents(userId, lastEventId, clientId, {
      push: (frame) => {
        void emit.single(frame)
        return true
      },
      end: () => void emit.end(),
    }),
  )
