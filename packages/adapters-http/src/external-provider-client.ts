/**
 * `ExternalProviderClient` over Node's http(s): discovery documents, key sets and code
 * exchanges with external OpenID providers. The same address guard as webhooks applies
 * (an RP contact names the issuer, so the engine must not be pointed at internal addresses),
 * redirects are not followed, answers are capped at 1 MiB and 10 s.
 */
import { ExternalProviderClient, IdentityProviderUnavailable, isLoopback, nonPublicAddress } from "@signet/core"
import { Effect, Layer } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"

const TIMEOUT_MS = 10_000
const MAX_BYTES = 1024 * 1024

const refused = (address: string, allowLoopbackHttp: boolean): string | undefined =>
  allowLoopbackHttp && isLoopback(address) ? undefined : nonPublicAddress(address)

interface Answer { readonly status: number; readonly text: string }

const send = (url: string, init: { readonly method: "GET" | "POST"; readonly headers: Record<string, string>; readonly body?: string }, allowLoopbackHttp: boolean) =>
  Effect.async<Answer, IdentityProviderUnavailable>((resume) => {
    const fail = (detail: string) => resume(Effect.fail(new IdentityProviderUnavailable({ detail })))
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return fail(`not a URL: ${url}`)
    }
    if (target.protocol !== "https:" && !(target.protocol === "http:" && allowLoopbackHttp)) return fail(`${target.origin} is not https`)
    const host = target.hostname.replace(/^\[|\]$/g, "")
    if (isIP(host) !== 0) {
      const problem = refused(host, allowLoopbackHttp)
      if (problem !== undefined) return fail(`${host} refused: ${problem}`)
    }
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
        if (error) return callback(error, "", 4)
        const list = addresses as unknown as ReadonlyArray<LookupAddress>
        const bad = list.map((a) => refused(a.address, allowLoopbackHttp)).find((p) => p !== undefined)
        if (bad !== undefined || list.length === 0) return callback(new Error(`refused: ${bad ?? "no address"}`), "", 4)
        if (lookupOptions.all) return callback(null, list as unknown as string, 4)
        return callback(null, list[0]!.address, list[0]!.family)
      })
    }
    const request = target.protocol === "https:" ? httpsRequest : httpRequest
    const headers = init.body === undefined ? init.headers : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) }
    const req = request(target, { method: init.method, lookup, timeout: TIMEOUT_MS, headers }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BYTES) req.destroy(new Error("answer larger than 1 MiB"))
        else chunks.push(chunk)
      })
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") })))
      res.on("error", (e) => fail(e.message))
    })
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)))
    req.on("error", (e) => fail(`${target.origin}: ${e.message}`))
    req.end(init.body)
    return Effect.sync(() => req.destroy())
  })

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// RFC 6749 §2.3.1: the client id and secret are form-urlencoded before they are joined and base64-encoded.
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The client; `allowLoopbackHttp` is the development switch shared with webhooks (http and 127.0.0.1 providers). */
export const ExternalProviderClientNode = (options: { readonly allowLoopbackHttp: boolean }): Layer.Layer<ExternalProviderClient> =>
  Layer.succeed(ExternalProviderClient, {
    getJson: (url, accessToken) => send(url, {
      method: "GET", headers: { accept: "application/json", ...(accessToken !== undefined ? { authorization: `Bearer ${accessToken}` } : {}) },
    }, options.allowLoopbackHttp).pipe(
      Effect.flatMap((a) => {
        if (a.status < 200 || a.status > 299) return Effect.fail(new IdentityProviderUnavailable({ detail: `${url} answered ${a.status}` }))
        const body = parse(a.text)
        return body === undefined ? Effect.fail(new IdentityProviderUnavailable({ detail: `${url} did not answer JSON` })) : Effect.succeed(body)
      })),
    exchangeCode: (tokenEndpoint, credentials, form) => send(tokenEndpoint, {
      method: "POST",
      headers: {
        accept: "application/json", "content-type": "application/x-www-form-urlencoded",
        authorization: basic(credentials.clientId, credentials.clientSecret),
      },
      body: new URLSearchParams(form).toString(),
    }, options.allowLoopbackHttp).pipe(Effect.map((a) => ({ status: a.status, body: parse(a.text) ?? {} }))),
  })
