/**
 * The one way the engine calls a URL a caller named (webhooks and callbacks, external identity
 * providers, an external TSA). The URL is judged by the core address guard before anything is
 * sent, and every address DNS gives for its host is judged again at connect time, so a name that
 * is re-pointed at an internal address after registration (DNS rebinding) is refused. Redirects
 * are never followed; answers are capped in size and time.
 */
import { deliveryUrlProblem, isLoopback, nonPublicAddress } from "@signet/core"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { LookupFunction } from "node:net"
import { domainToASCII } from "node:url"

/** Who may be reached: `allowLoopbackHttp` is the documented development switch (http and loopback addresses). */
export interface GuardPolicy {
  readonly allowLoopbackHttp: boolean
}

/** A refused or failed call; `message` says why. */
export class GuardedRequestFailure extends Error {
  override readonly name = "GuardedRequestFailure"
}

/** How names become addresses: `node:dns` lookup (the system resolver), replaceable to script a rebinding name. */
export type Resolver = (
  hostname: string,
  options: { readonly all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<LookupAddress>) => void,
) => void

/** Why a resolved address may not be reached, or undefined. */
export const refusedAddress = (address: string, policy: GuardPolicy): string | undefined =>
  policy.allowLoopbackHttp && isLoopback(address) ? undefined : nonPublicAddress(address)

/** A DNS lookup that fails unless every address of the name is allowed (checked at connect time). */
export const guardedLookup =
  (policy: GuardPolicy, resolver: Resolver = dnsLookup): LookupFunction =>
  (hostname, options, callback) => {
    // IDNA and trailing dots as the resolver would see them; the WHATWG URL parser has done most of this already
    const name = domainToASCII(hostname) || hostname
    resolver(name, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4)
      const list = addresses
      const bad = list.map((a) => refusedAddress(a.address, policy)).find((p) => p !== undefined)
      if (bad !== undefined || list.length === 0) return callback(new Error(`refused: ${hostname} resolves to a ${bad ?? "no address"}`), "", 4)
      if (options.all) return callback(null, list as unknown as string, 4)
      return callback(null, list[0]!.address, list[0]!.family)
    })
  }

/** What a guarded request sends. */
export interface GuardedRequest {
  readonly method: "GET" | "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  /** default 10 s */
  readonly timeoutMs?: number
  /** the answer is cut off (and the call fails) above this many bytes; default 1 MiB */
  readonly maxBytes?: number
  /** the caller can stop the request */
  readonly signal?: AbortSignal
  /** what a larger answer does: fail the call (default) or end it with the status and the bytes read so far */
  readonly overflow?: "fail" | "truncate"
  /** plain http to public addresses too (RFC 3161 TSAs mostly speak http; their answers are signed) */
  readonly allowPublicHttp?: boolean
}

/** The answer of a guarded request. */
export interface GuardedAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: Uint8Array
}

/** Sends `init` to `url` under the address guard; fails with `GuardedRequestFailure` when refused, unreachable, slow or too large. */
export const guardedRequest = (url: string, init: GuardedRequest, policy: GuardPolicy, resolver: Resolver = dnsLookup): Promise<GuardedAnswer> =>
  new Promise((resolve, reject) => {
    const judged = init.allowPublicHttp === true ? url.replace(/^http:/i, "https:") : url
    const problem = deliveryUrlProblem(judged, policy.allowLoopbackHttp)
    if (problem !== undefined) return reject(new GuardedRequestFailure(`refused: ${url} ${problem}`))
    const target = new URL(url)
    const timeoutMs = init.timeoutMs ?? 10_000
    const maxBytes = init.maxBytes ?? 1024 * 1024
    const body = init.body === undefined ? undefined : typeof init.body === "string" ? Buffer.from(init.body, "utf8") : Buffer.from(init.body)
    const headers = body === undefined ? init.headers : { ...init.headers, "content-length": String(body.length) }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest
    let settled = false
    const fail = (e: Error) => {
      if (settled) return
      settled = true
      reject(new GuardedRequestFailure(e.message))
    }
    // agent: false: a fresh connection (and so a fresh, judged lookup) for every call
    const req = send(target, { method: init.method, lookup: guardedLookup(policy, resolver), timeout: timeoutMs, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size <= maxBytes) return void chunks.push(chunk)
        if (init.overflow === "truncate" && !settled) {
          settled = true
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) })
        }
        req.destroy(new Error(`answer larger than ${maxBytes} bytes`))
      })
      res.on("end", () => {
        if (settled) return
        settled = true
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) })
      })
      res.on("error", fail)
    })
    const onAbort = () => req.destroy(new Error("cancelled"))
    init.signal?.addEventListener("abort", onAbort, { once: true })
    req.on("close", () => init.signal?.removeEventListener("abort", onAbort))
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)))
    req.on("error", fail)
    req.end(body)
  })
