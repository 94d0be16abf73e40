/** A `TimestampAuthority` that asks an external RFC 3161 TSA over HTTP (RFC 3161 §3.4). */
import { TimestampAuthority, TimestampUnavailable, timestampQuery, tokenOfReply } from "@signet/core"
import { Effect, Either, Layer } from "effect"

/** Where the TSA is and how long to wait for it. */
export interface TimestampAuthorityHttpOptions {
  /** the TSA's URL (POST `application/timestamp-query`) */
  readonly url: string
  /** default 10 s */
  readonly timeoutMs?: number
}

/** The external TSA at `options.url`; a TSA that does not answer, refuses or answers for another imprint or nonce is `TimestampUnavailable`. */
export const TimestampAuthorityHttp = (options: TimestampAuthorityHttpOptions): Layer.Layer<TimestampAuthority> =>
  Layer.succeed(TimestampAuthority, TimestampAuthority.of({
    stamp: (request) => Effect.gen(function* () {
      const reply = yield* Effect.tryPromise({
        try: async (signal) => {
          const response = await fetch(options.url, {
            method: "POST", headers: { "content-type": "application/timestamp-query" }, body: new Uint8Array(timestampQuery(request)),
            signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
          })
          if (!response.ok) throw new Error(`HTTP ${response.status}`)
          return new Uint8Array(await response.arrayBuffer())
        },
        catch: (e) => new TimestampUnavailable({ detail: `${options.url}: ${e instanceof Error ? e.message : String(e)}` }),
      })
      const token = tokenOfReply(reply, request)
      return Either.isRight(token) ? token.right : yield* new TimestampUnavailable({ detail: `${options.url}: ${token.left}` })
    }),
  }))
