/**
 * `ExternalProviderClient` over Node's http(s): discovery documents, key sets and code
 * exchanges with external OpenID providers, through the guarded HTTP client shared with webhooks
 * and the TSA client (an RP contact names the issuer, so the engine must not be pointed at
 * internal addresses); redirects are not followed, answers are capped at 1 MiB and 10 s.
 */
import { ExternalProviderClient, IdentityProviderUnavailable, jsonDepthProblem } from "@signet/core"
import { Effect, Layer } from "effect"
import { guardedRequest, type GuardPolicy } from "./guarded-http.ts"

interface Answer {
  readonly status: number
  readonly text: string
}

const send = (url: string, init: { readonly method: "GET" | "POST"; readonly headers: Record<string, string>; readonly body?: string }, policy: GuardPolicy) =>
  Effect.tryPromise({
    try: (signal) => guardedRequest(url, { ...init, signal, maxBytes: 1024 * 1024 }, policy),
    catch: (e) => new IdentityProviderUnavailable({ detail: `${url}: ${e instanceof Error ? e.message : String(e)}` }),
  }).pipe(Effect.map((a): Answer => ({ status: a.status, text: new TextDecoder().decode(a.body) })))

const parse = (text: string): unknown => {
  try {
    return jsonDepthProblem(text) === undefined ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

// RFC 6749 §2.3.1: the client id and secret are form-urlencoded before they are joined and base64-encoded.
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The client; `allowLoopbackHttp` is the development switch shared with webhooks (http and 127.0.0.1 providers). */
export const ExternalProviderClientNode = (options: { readonly allowLoopbackHttp: boolean }): Layer.Layer<ExternalProviderClient> =>
  Layer.succeed(ExternalProviderClient, {
    getJson: (url, accessToken) =>
      send(
        url,
        {
          method: "GET",
          headers: { accept: "application/json", ...(accessToken !== undefined ? { authorization: `Bearer ${accessToken}` } : {}) },
        },
        options,
      ).pipe(
        Effect.flatMap((a) => {
          if (a.status < 200 || a.status > 299) return Effect.fail(new IdentityProviderUnavailable({ detail: `${url} answered ${a.status}` }))
          const body = parse(a.text)
          return body === undefined ? Effect.fail(new IdentityProviderUnavailable({ detail: `${url} did not answer JSON` })) : Effect.succeed(body)
        }),
      ),
    exchangeCode: (tokenEndpoint, credentials, form) =>
      send(
        tokenEndpoint,
        {
          method: "POST",
          headers: {
            accept: "application/json",
            "content-type": "application/x-www-form-urlencoded",
            authorization: basic(credentials.clientId, credentials.clientSecret),
          },
          body: new URLSearchParams(form).toString(),
        },
        options,
      ).pipe(Effect.map((a) => ({ status: a.status, body: parse(a.text) ?? {} }))),
  })
