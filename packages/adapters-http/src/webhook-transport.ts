/**
 * `WebhookTransport` over Node's http(s): every address DNS gives for the host is checked by
 * the address guard at connection time (so a name cannot be re-pointed at an internal address
 * after registration), redirects are never followed, and an attempt times out after 10 s.
 */
import { isLoopback, nonPublicAddress, TransportFailure, WebhookTransport } from "@signet/core"
import { Effect, Layer } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"

const TIMEOUT_MS = 10_000

/** Why the address may not be reached, or undefined. */
const refused = (address: string, allowLoopbackHttp: boolean): string | undefined =>
  allowLoopbackHttp && isLoopback(address) ? undefined : nonPublicAddress(address)

/** The transport; `allowLoopbackHttp` is the documented development switch. */
export const WebhookTransportNode = (options: { readonly allowLoopbackHttp: boolean }): Layer.Layer<WebhookTransport> =>
  Layer.succeed(WebhookTransport, {
    post: (url, headers, body) => Effect.async<{ readonly status: number }, TransportFailure>((resume) => {
      let target: URL
      try {
        target = new URL(url)
      } catch {
        resume(Effect.fail(new TransportFailure({ reason: "invalid URL" })))
        return
      }
      const host = target.hostname.replace(/^\[|\]$/g, "")
      if (target.protocol === "http:" && !options.allowLoopbackHttp) {
        resume(Effect.fail(new TransportFailure({ reason: "http is not allowed" })))
        return
      }
      if (isIP(host) !== 0) {
        const problem = refused(host, options.allowLoopbackHttp)
        if (problem !== undefined) {
          resume(Effect.fail(new TransportFailure({ reason: `refused: ${problem}` })))
          return
        }
      }
      const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
        dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
          if (error) return callback(error, "", 4)
          const list = addresses as unknown as ReadonlyArray<LookupAddress>
          const bad = list.map((a) => refused(a.address, options.allowLoopbackHttp)).find((p) => p !== undefined)
          if (bad !== undefined || list.length === 0) return callback(new Error(`refused: ${bad ?? "no address"}`), "", 4)
          if (lookupOptions.all) return callback(null, list as unknown as string, 4)
          return callback(null, list[0]!.address, list[0]!.family)
        })
      }
      const send = target.protocol === "https:" ? httpsRequest : httpRequest
      const req = send(target, {
        method: "POST", lookup, timeout: TIMEOUT_MS,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      }, (res) => {
        res.resume()
        res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0 })))
        res.on("error", (e) => resume(Effect.fail(new TransportFailure({ reason: e.message }))))
      })
      req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)))
      req.on("error", (e) => resume(Effect.fail(new TransportFailure({ reason: e.message }))))
      req.end(body)
      return Effect.sync(() => req.destroy())
    }),
  })
