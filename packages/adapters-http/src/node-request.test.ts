import fc from "fast-check"
import type { IncomingHttpHeaders } from "node:http"
import { describe, expect, it } from "vitest"
import { NodeHeaders, NodeRequest } from "./node-request.ts"

// Node's parse: names in lower case, a repeated header joined into one string, set-cookie as an array.
const nodeHeaders = fc.dictionary(
  fc.constantFrom("authorization", "content-type", "x-forwarded-for", "cookie", "accept", "x-b", "x-a"),
  fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,20}[\x21-\x7e])?$/),
)
const withCookies = fc.tuple(nodeHeaders, fc.array(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9]{0,8}$/), { maxLength: 3 })).map(([fields, cookies]) => {
  const all: IncomingHttpHeaders = { ...fields }
  if (cookies.length > 0) all["set-cookie"] = cookies
  return all
})

/** The web Headers a host would build from the same parse (as node-server.ts does for other handlers). */
const webHeaders = (fields: IncomingHttpHeaders) => {
  const headers = new Headers()
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value)
  }
  return headers
}

describe("NodeHeaders", () => {
  it("answers get, has, getSetCookie and iteration as web Headers made from the same parse", () => {
    fc.assert(
      fc.property(withCookies, fc.constantFrom("Authorization", "content-type", "X-A", "Set-Cookie", "cookie", "missing"), (fields, asked) => {
        const ours = new NodeHeaders(fields)
        const theirs = webHeaders(fields)
        expect(ours.get(asked)).toBe(theirs.get(asked))
        expect(ours.has(asked)).toBe(theirs.has(asked))
        expect(ours.getSetCookie()).toEqual(theirs.getSetCookie())
        expect([...ours]).toEqual([...theirs])
        expect([...ours.keys()]).toEqual([...theirs.keys()])
        expect([...ours.values()]).toEqual([...theirs.values()])
        const seen: Array<[string, string]> = []
        ours.forEach((value, key) => {
          seen.push([key, value])
        })
        expect(seen).toEqual([...theirs.entries()])
        // and a web Headers copies it as it copies its own kind
        expect([...new Headers(ours)]).toEqual([...theirs])
      }),
      { numRuns: 300 },
    )
  })

  it("changes its own copy, never Node's parse", () => {
    const fields: IncomingHttpHeaders = { accept: "a", "set-cookie": ["x=1"] }
    const headers = new NodeHeaders(fields)
    headers.append("Accept", "b")
    headers.append("set-cookie", "y=2")
    headers.set("X-New", "n")
    headers.delete("accept")
    expect(headers.get("accept")).toBeNull()
    expect(headers.get("x-new")).toBe("n")
    expect(headers.getSetCookie()).toEqual(["x=1", "y=2"])
    expect(fields).toEqual({ accept: "a", "set-cookie": ["x=1"] })
    // the changed copy has no prototype, as Node's parse has none: Object.prototype's names are no headers
    expect(headers.get("constructor")).toBeNull()
    expect(headers.has("toString")).toBe(false)
  })
})

describe("NodeRequest", () => {
  const make = () => new NodeRequest("POST", "http://localhost:3000/api/v2/sign/single?x=1", { "content-type": "application/json", authorization: "Bearer t" })

  it("has the method, URL and headers of the request", () => {
    const request = make() as unknown as Request
    expect(request.method).toBe("POST")
    expect(request.url).toBe("http://localhost:3000/api/v2/sign/single?x=1")
    expect(request.headers.get("Authorization")).toBe("Bearer t")
    expect(String(request)).toBe("[object Request]")
  })

  it("answers the rest of a web Request through one made on first use, without a body", async () => {
    const request = make() as unknown as Request
    expect(request.signal).toBeInstanceOf(AbortSignal)
    expect(request.signal).toBe(request.signal)
    expect(request.body).toBeNull()
    expect(request.bodyUsed).toBe(false)
    const copy = request.clone()
    expect(copy).toBeInstanceOf(Request)
    expect(copy.method).toBe("POST")
    expect(copy.headers.get("content-type")).toBe("application/json")
    expect(await request.text()).toBe("")
  })
})
