/** A `TimestampAuthority` that asks an external RFC 3161 TSA over HTTP (RFC 3161 §3.4), through the guarded HTTP client. */
import { TimestampAuthority, TimestampUnavailable, timestampQuery, tokenOfReply } from "@signet/core"
import { Effect, Either, Layer } from "effect"
import { guardedRequest } from "./guarded-http.ts"

/** Where the TSA is and how long to wait for it. */
export interface TimestampAuthorityHttpOptions {
  /** the TSA's URL (POST `application/timestamp-query`); http or https, at a public address */
  readonly url: string
  /** default 10 s */
  readonly timeoutMs?: number
  /** development switch shared with webhooks: a TSA on a loopback address may be used */
  readonly allowLoopbackHttp?: boolean
}

/** The external TSA at `options.url`; a TSA that does not answer, refuses, is not at a public address or answers for another imprint or nonce is `TimestampUnavailable`. */
export const TimestampAuthorityHttp = (options: TimestampAuthorityHttpOptions): Layer.Layer<TimestampAuthority> =>
  Layer.succeed(
    TimestampAuthority,
    TimestampAuthority.of({
      stamp: (request) =>
        Effect.gen(function* () {
          const reply = yield* Effect.tryPromise({
            try: async (signal) => {
              const answer = await guardedRequest(
                options.url,
                {
                  method: "POST",
                  headers: { "content-type": "application/timestamp-query" },
                  body: timestampQuery(request),
                  signal,
                  timeoutMs: options.timeoutMs ?? 10_000,
                  maxBytes: 256 * 1024,
                  allowPublicHttp: true,
                },
                { allowLoopbackHttp: options.allowLoopbackHttp ?? false },
              )
              if (answer.status < 200 || answer.status > 299) throw new Error(`HTTP ${answer.status}`)
              return answer.body
            },
            catch: (e) => new TimestampUnavailable({ detail: `${options.url}: ${e instanceof Error ? e.message : String(e)}` }),
          })
          const token = tokenOfReply(reply, request)
          return Either.isRight(token) ? token.right : yield* new TimestampUnavailable({ detail: `${options.url}: ${token.left}` })
        }),
    }),
  )
