import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { guardedRequest, type Resolver } from "./guarded-http.ts"

// A receiver on 127.0.0.1 that counts what reaches it: a refused call must never arrive.
let server: Server
let port = 0
let hits = 0
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++
    if (req.url === "/redirect") return void res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end()
    if (req.url === "/big") return void res.end(Buffer.alloc(2 * 1024 * 1024, 120))
    res.end("ok")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A resolver that answers the scripted addresses in turn (a rebinding name). */
const scripted = (...answers: ReadonlyArray<ReadonlyArray<string>>): Resolver => {
  let i = 0
  return (_name, _options, callback) => {
    const list = answers[Math.min(i++, answers.length - 1)]!
    callback(
      null,
      list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    )
  }
}

const get = { method: "GET", headers: {} } as const

describe("guarded HTTP client (webhooks, callbacks, identity providers, TSA)", () => {
  it.each([
    "https://localhost./",
    "https://metadata.google.internal./",
    "https://[2002:7f00:1::1]/",
    "https://[fec0::1]/",
    "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    "https://[64:ff9b:1::a9fe:a9fe]/",
  ])("refuses %s before sending anything", async (url) => {
    await expect(guardedRequest(url, get, { allowLoopbackHttp: false })).rejects.toThrow(/^refused: /)
  })

  it("refuses loopback without the development switch, and reaches it with the switch", async () => {
    const before = hits
    await expect(guardedRequest(`http://127.0.0.1:${port}/`, get, { allowLoopbackHttp: false })).rejects.toThrow(/refused/)
    await expect(guardedRequest(`http://localhost.:${port}/`, get, { allowLoopbackHttp: false })).rejects.toThrow(/refused/)
    expect(hits).toBe(before)
    const answer = await guardedRequest(`http://127.0.0.1:${port}/`, get, { allowLoopbackHttp: true })
    expect([answer.status, new TextDecoder().decode(answer.body)]).toEqual([200, "ok"])
  })

  it("judges the addresses DNS gives at connect time: a public name that resolves to an internal address is refused", async () => {
    const before = hits
    const url = `http://hooks.rp.example:${port}/`
    for (const internal of ["127.0.0.1", "10.0.0.7", "2002:7f00:1::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1"]) {
      await expect(guardedRequest(url, { ...get, allowPublicHttp: true }, { allowLoopbackHttp: false }, scripted([internal]))).rejects.toThrow(
        /refused: hooks\.rp\.example resolves to a /,
      )
    }
    // one bad address among good ones is enough to refuse
    await expect(
      guardedRequest(url, { ...get, allowPublicHttp: true }, { allowLoopbackHttp: false }, scripted(["93.184.216.34", "169.254.169.254"])),
    ).rejects.toThrow(/link-local/)
    expect(hits).toBe(before)
  })

  it("DNS rebinding: the name that pointed at an allowed address is refused when it is re-pointed", async () => {
    const rebinding = scripted(["127.0.0.1"], ["169.254.169.254"])
    const url = `http://hooks.rp.example:${port}/`
    // with the development switch the first answer (loopback) is allowed and really reached
    expect((await guardedRequest(url, { ...get, allowPublicHttp: true }, { allowLoopbackHttp: true }, rebinding)).status).toBe(200)
    await expect(guardedRequest(url, { ...get, allowPublicHttp: true }, { allowLoopbackHttp: true }, rebinding)).rejects.toThrow(/link-local/)
  })

  it("does not follow redirects and caps the answer", async () => {
    expect((await guardedRequest(`http://127.0.0.1:${port}/redirect`, get, { allowLoopbackHttp: true })).status).toBe(302)
    await expect(guardedRequest(`http://127.0.0.1:${port}/big`, get, { allowLoopbackHttp: true })).rejects.toThrow(/larger than/)
    const cut = await guardedRequest(`http://127.0.0.1:${port}/big`, { ...get, maxBytes: 1000, overflow: "truncate" }, { allowLoopbackHttp: true })
    expect(cut.status).toBe(200)
  })
})
