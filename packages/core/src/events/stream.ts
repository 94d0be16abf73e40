/**
 * The live event stream of a user's signing requests (`GET /v2/events`). The event log in
 * storage is the truth; the EventBus only pokes subscribers (on every node) after a commit,
 * and a three-second tick re-reads the log, so an event is never missed, a reconnect with
 * `Last-Event-ID` resumes exactly, and a lost poke costs at most one tick.
 */
import { Effect, Stream } from "effect"
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

/** How often a quiet stream re-reads the log and, if still quiet, sends a keep-alive. */
export const STREAM_TICK = "3 seconds"

const PAGE = 200

/**
 * The frames of a user's stream: `connected`, then every event after `lastEventId` (or, for
 * a new client, after the newest event at connection time), as they are recorded. With
 * `clientId`, only the events of that RP: a token issued to one RP never sees the user's
 * requests at another (docs/authorization.md); null (Signet's console) shows them all.
 */
export const userEventStream = (userId: string, lastEventId: number | null, clientId: string | null = null) =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const log = yield* SigningEvents
      // Subscribe before reading the log, so nothing recorded in between can be missed.
      const pokes = yield* Effect.flatMap(EventBus, (bus) => bus.subscribe(userEventsTopic(userId)))
      let cursor = lastEventId ?? (yield* log.lastSeqForUser(userId))
      const drain = (quiet: boolean) =>
        Effect.gen(function* () {
          const frames: Array<string> = []
          for (;;) {
            const page = yield* log.listForUser(userId, cursor, PAGE)
            for (const e of page) {
              if (clientId === null || e.clientId === clientId) frames.push(sseFrame(e.type, eventRecord(e), e.seq))
              cursor = e.seq
            }
            if (page.length < PAGE) break
          }
          if (frames.length === 0 && quiet) frames.push(KEEP_ALIVE)
          return frames
        })
      const triggers = Stream.merge(pokes.pipe(Stream.as(false)), Stream.tick(STREAM_TICK).pipe(Stream.drop(1), Stream.as(true)))
      return Stream.make(sseFrame("connected", { status: "connected", last_event_id: cursor }, cursor)).pipe(
        Stream.concat(Stream.fromEffect(drain(false)).pipe(Stream.flattenIterables)),
        Stream.concat(triggers.pipe(Stream.mapEffect(drain), Stream.flattenIterables)),
        // Storage gone (shutdown, outage): end the stream; the client resumes with Last-Event-ID.
        Stream.catchAllCause(() => Stream.empty),
      )
    }),
  )
