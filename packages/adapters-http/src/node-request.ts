/**
 * A request as Node parsed it, in the shape of a web `Request`, for the engine's own handler.
 * A web `Request` costs more to make than a small JSON endpoint costs to run (its `Headers` validate
 * and copy every header again, and each one makes an `AbortSignal`), and the engine reads only its
 * method, URL and headers (the body comes as a direct read of Node's stream, `readBody`). Anything
 * else a caller asks of it (its signal, `clone()`, `json()`, ...) is answered by a web `Request`
 * made then, once.
 */
import type { IncomingHttpHeaders } from "node:http"

/** Web `Headers` over Node's parsed headers (names already in lower case, repeats already joined); copied only when changed. */
export class NodeHeaders implements Headers {
  #fields: IncomingHttpHeaders
  #own = false

  constructor(fields: IncomingHttpHeaders) {
    this.#fields = fields
  }

  get(name: string): string | null {
    const value = this.#fields[name.toLowerCase()]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(", ") : value
  }

  has(name: string): boolean {
    return this.#fields[name.toLowerCase()] !== undefined
  }

  getSetCookie(): Array<string> {
    const value = this.#fields["set-cookie"]
    return value === undefined ? [] : Array.isArray(value) ? [...value] : [value]
  }

  set(name: string, value: string): void {
    this.#writable()[name.toLowerCase()] = String(value)
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase()
    const fields = this.#writable()
    const known = fields[key]
    if (key === "set-cookie") fields[key] = [...(known === undefined ? [] : Array.isArray(known) ? known : [known]), String(value)]
    else fields[key] = known === undefined ? String(value) : `${Array.isArray(known) ? known.join(", ") : known}, ${value}`
  }

  delete(name: string): void {
    delete this.#writable()[name.toLowerCase()]
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this) callback.call(thisArg, value, key, this)
  }

  /** As web `Headers` iterate: names sorted, repeats joined, each `set-cookie` on its own. */
  *entries(): HeadersIterator<[string, string]> {
    for (const key of Object.keys(this.#fields).sort()) {
      const value = this.#fields[key]
      if (value === undefined) continue
      if (key === "set-cookie") for (const cookie of Array.isArray(value) ? value : [value]) yield [key, cookie]
      else yield [key, Array.isArray(value) ? value.join(", ") : value]
    }
  }

  *keys(): HeadersIterator<string> {
    for (const [key] of this.entries()) yield key
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries()
  }

  get [Symbol.toStringTag]() {
    return "Headers"
  }

  #writable(): IncomingHttpHeaders {
    if (!this.#own) {
      // without a prototype, as Node's own: a header name is never read through to Object.prototype
      this.#fields = Object.assign(Object.create(null) as IncomingHttpHeaders, this.#fields)
      this.#own = true
    }
    return this.#fields
  }
}

const web = new WeakMap<NodeRequest, Request>()

/** A Node request with a web `Request`'s method, URL and headers; the rest through a web `Request` made on first use. */
export class NodeRequest {
  readonly method: string
  readonly url: string
  readonly headers: Headers

  constructor(method: string, url: string, headers: IncomingHttpHeaders) {
    this.method = method
    this.url = url
    this.headers = new NodeHeaders(headers)
  }

  get [Symbol.toStringTag]() {
    return "Request"
  }
}

/** The web `Request` behind `request` (no body: the engine reads bodies directly), made once. */
const webRequestOf = (request: NodeRequest): Request => {
  let made = web.get(request)
  if (made === undefined) {
    made = new Request(request.url, { method: request.method, headers: [...request.headers] })
    web.set(request, made)
  }
  return made
}

// Everything else a web Request has, answered by the one made for it.
for (const name of [
  "body",
  "bodyUsed",
  "signal",
  "cache",
  "credentials",
  "destination",
  "integrity",
  "keepalive",
  "mode",
  "redirect",
  "referrer",
  "referrerPolicy",
  "duplex",
]) {
  Object.defineProperty(NodeRequest.prototype, name, {
    get(this: NodeRequest) {
      return (webRequestOf(this) as unknown as Record<string, unknown>)[name]
    },
  })
}
for (const name of ["clone", "arrayBuffer", "blob", "formData", "json", "text", "bytes"]) {
  Object.defineProperty(NodeRequest.prototype, name, {
    value(this: NodeRequest, ...args: Array<unknown>) {
      const request = webRequestOf(this) as unknown as Record<string, (...a: Array<unknown>) => unknown>
      return request[name]!(...args)
    },
  })
}
