import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SignetClient } from "./client.ts"

// A server that says what it received, redirects and sets two cookies.
let server: Server
let base = ""
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = req.url ?? "/"
      if (path.startsWith("/redirect/")) {
        res.writeHead(Number(path.slice("/redirect/".length)), { location: "/echo" }).end()
        return
      }
      if (path === "/text") {
        res.writeHead(200, { "content-type": "text/plain" }).end("\uFEFFplain")
        return
      }
      res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] })
      res.end(
        JSON.stringify({
          method: req.method,
          path,
          body: Buffer.concat(chunks).toString("utf8"),
          contentType: req.headers["content-type"] ?? null,
          authorization: req.headers["authorization"] ?? null,
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://localhost:${(server.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe("SignetClient.raw", () => {
  it("sends JSON with its default headers and reads JSON, headers (both cookies) and text as fetch does", async () => {
    const client = new SignetClient(`${base}/api`, { authorization: "Bearer t" })
    const answer = await client.raw("POST", "/echo?x=1", { body: { a: "é" } })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ method: "POST", path: "/api/echo?x=1", body: '{"a":"é"}', contentType: "application/json", authorization: "Bearer t" })
    expect(answer.headers.get("content-type")).toBe("application/json")
    expect(answer.headers.getSetCookie()).toEqual(["a=1", "b=2"])
    // a byte-order mark is dropped, as by fetch's text()
    expect((await new SignetClient(base).raw("GET", "/text")).body).toBe("plain")
    // many calls over the kept-alive connections
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => client.raw<{ path: string }>("GET", `/echo/${i}`)))
    expect(many.map((a) => a.body.path)).toEqual(Array.from({ length: 50 }, (_, i) => `/api/echo/${i}`))
  })

  it("follows redirects as fetch does: 303 and a POST's 302 become a GET without body, 307 keeps both", async () => {
    const client = new SignetClient(base)
    expect((await client.raw("POST", "/redirect/303", { body: { a: 1 } })).body).toMatchObject({ method: "GET", path: "/echo", body: "", contentType: null })
    expect((await client.raw("POST", "/redirect/302", { body: { a: 1 } })).body).toMatchObject({ method: "GET", body: "" })
    expect((await client.raw("POST", "/redirect/307", { body: { a: 1 } })).body).toMatchObject({
      method: "POST",
      body: '{"a":1}',
      contentType: "application/json",
    })
  })

  it("a refused connection rejects like fetch", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    await expect(new SignetClient(`http://127.0.0.1:${port}`).raw("GET", "/")).rejects.toThrow(TypeError)
  })
})
