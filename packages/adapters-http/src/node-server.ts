/** Mounts a web-standard handler on Node's `http` server, streaming bodies both ways. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { Readable } from "node:stream"
import { InvalidRequest, PayloadTooLarge } from "@signet/core"
import { offerDirectBody } from "./http/body.ts"
import { NodeRequest } from "./node-request.ts"
import { type JsonAnswer, jsonAnswersOf, jsonTextOf } from "./http/respond.ts"

const clientIps = new WeakMap<Request, string>()

/** The peer address of a request that came through `nodeListener` (the engine applies trusted proxies to it). */
export const nodeClientIp = (request: Request): string => clientIps.get(request) ?? "unknown"

// A host name or IP literal with an optional port (RFC 9110 §7.2); anything else is refused.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * Converts Node's request to a web `Request`; throws on a malformed Host header. For the engine's
 * own handler (`bodiesDirect`), which reads every body through `readBody`, it is a `NodeRequest`
 * over Node's parse, whose body is offered only as a direct read of Node's stream: a web stream,
 * `Headers` and a `Request` around them cost about as much as the rest of a small JSON request.
 */
const toRequest = (req: IncomingMessage, bodiesDirect: boolean): Request => {
  const host = req.headers.host ?? "localhost"
  if (!HOST.test(host)) throw new Error("malformed Host header")
  const url = new URL(req.url ?? "/", `http://${host}`)
  const hasBody = req.method !== "GET" && req.method !== "HEAD"
  if (bodiesDirect) {
    // The engine reads the method, URL and headers, and the body directly: no web Request is made (node-request.ts).
    const request = new NodeRequest(req.method ?? "GET", url.href, req.headers) as unknown as Request
    clientIps.set(request, req.socket.remoteAddress ?? "unknown")
    if (hasBody) offerDirectBody(request, directBodyOf(req))
    return request
  }
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value)
  }
  const body = hasBody ? bodyOf(req) : undefined
  const request = new Request(url, {
    method: req.method ?? "GET",
    headers,
    ...(body !== undefined ? { body: body.stream, duplex: "half" } : {}),
  } as RequestInit)
  clientIps.set(request, req.socket.remoteAddress ?? "unknown")
  if (body !== undefined) offerDirectBody(request, body.direct)
  return request
}

/**
 * A request body two ways: a web stream that starts reading Node's stream only when it is read
 * itself (`Readable.toWeb` at once subscribes to it, and costs more than the rest of the request),
 * and, while that stream is untouched, a direct read of at most `limit` bytes (`readBody`).
 */
const bodyOf = (req: IncomingMessage) => {
  // Node reads and discards a body nobody started to read once the answer is sent (all 100 MB of
  // it): started now, as Readable.toWeb did, an unread body stays on the wire (a few KiB buffered)
  // and its connection is closed after the answer (nodeListener).
  req.read(0)
  let web: ReadableStreamDefaultReader<Uint8Array> | undefined
  let direct = false
  const fromNode = () => (web ??= (Readable.toWeb(req) as ReadableStream<Uint8Array>).getReader())
  const stream = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const { done, value } = await fromNode().read()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => fromNode().cancel(reason),
    },
    // nothing is pulled before a reader asks
    { highWaterMark: 0 },
  )
  return {
    stream,
    direct: (limit: number): Promise<Uint8Array> | undefined => {
      if (web !== undefined || direct || stream.locked) return undefined
      direct = true
      // Read once: the web stream now reads as used (locked), as after any other read.
      stream.getReader()
      return readAtMost(req, limit)
    },
  }
}

/** A request body as one direct read of at most `limit` bytes (`readBody`); there is no web stream. */
const directBodyOf = (req: IncomingMessage) => {
  // As in bodyOf: an unread body stays on the wire, and its connection is closed after the answer.
  req.read(0)
  let read = false
  return (limit: number): Promise<Uint8Array> | undefined => {
    if (read) return undefined
    read = true
    return readAtMost(req, limit)
  }
}

/** Node's stream to its end, refused past `limit` bytes; the rest is left unread (the host closes the connection after answering). */
const readAtMost = (req: IncomingMessage, limit: number): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    // An empty body may have ended already: 'end' does not come again.
    if (req.readableEnded) {
      resolve(new Uint8Array())
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
      req.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > limit) {
        stop()
        req.pause()
        reject(new PayloadTooLarge({ limit }))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    // The client went away before the end of its body.
    const onClose = () => {
      stop()
      reject(new Error("the request body ended early"))
    }
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    req.on("close", onClose)
  })

/** How long a connection whose request body was left unread stays open after the answer. */
export const LINGER_MS = 2_000

/** How long a response may wait for a client to read before the connection is dropped. */
export const SLOW_CLIENT_MS = 30_000

const drained = (res: ServerResponse): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => done(false), SLOW_CLIENT_MS)
    const done = (ok: boolean) => {
      clearTimeout(timer)
      res.off("drain", onDrain)
      res.off("close", onClose)
      resolve(ok)
    }
    const onDrain = () => done(true)
    const onClose = () => done(false)
    res.on("drain", onDrain)
    res.on("close", onClose)
  })

/**
 * An answer given before the body was read (413, 415, early errors) leaves bytes on the socket
 * that would corrupt the next request on it: its connection is closed instead. The rest of the
 * body is never read (no memory is spent on it); the socket is destroyed shortly after the answer,
 * giving the client time to read it before its writes fail.
 */
const closeIfUnread = (req: IncomingMessage, headers: Record<string, string | Array<string>>) => {
  if (req.complete) return
  headers["connection"] = "close"
  // Lingering close: Node would destroy the socket as soon as the answer is flushed, and the
  // client's next write would be reset before it read the 413. Send FIN instead, read nothing
  // more (the paused request holds the socket's reads), and destroy after LINGER_MS.
  const socket = req.socket as Socket & { destroySoon?: () => void }
  socket.destroySoon = () => {
    socket.end()
    setTimeout(() => socket.destroy(), LINGER_MS).unref()
  }
}

/** Writes `text` as the whole body, with the backpressure of a body read chunk by chunk. */
const writeText = async (res: ServerResponse, text: string) => {
  if (!res.write(text) && !(await drained(res))) res.destroy()
  res.end()
}

/** Writes a `JsonAnswer`: its headers as a web `Headers` would give them (names in lower case, repeats joined, `set-cookie` kept apart). */
const writeJsonAnswer = async (req: IncomingMessage, res: ServerResponse, answer: JsonAnswer) => {
  const headers: Record<string, string | Array<string>> = {}
  for (const [name, value] of answer.headers) {
    const key = name.toLowerCase()
    const known = headers[key]
    if (key === "set-cookie") headers[key] = [...((known as Array<string> | undefined) ?? []), value]
    else headers[key] = known === undefined ? value : `${known as string}, ${value}`
  }
  // The whole text is at hand: its length, not chunked framing.
  headers["content-length"] = String(Buffer.byteLength(answer.text))
  closeIfUnread(req, headers)
  res.writeHead(answer.status, headers)
  if (req.method === "HEAD") res.end()
  else await writeText(res, answer.text)
}

/** A Node request listener over `handler`. */
export const nodeListener =
  (handler: (request: Request) => Promise<Response>) =>
  async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The engine's own handler answers JSON without a web Response; any other handler as it is.
    const answers = jsonAnswersOf(handler)
    let request: Request
    try {
      request = toRequest(req, answers !== undefined)
    } catch {
      // A Host header that is not a host (`a b`, `[::1`) makes no URL: the caller's mistake, 400.
      res
        .writeHead(400, { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", connection: "close" })
        .end(JSON.stringify({ error: new InvalidRequest({ detail: "malformed Host header" }).message }))
      return
    }
    let response: Response | JsonAnswer
    try {
      response = answers !== undefined ? await answers(request) : await handler(request)
    } catch {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "Internal server error" }))
      return
    }
    if (!(response instanceof Response)) return writeJsonAnswer(req, res, response)
    const headers: Record<string, string | Array<string>> = {}
    response.headers.forEach((value, key) => {
      if (key !== "set-cookie") headers[key] = value
    })
    const cookies = response.headers.getSetCookie()
    if (cookies.length > 0) headers["set-cookie"] = cookies
    closeIfUnread(req, headers)
    res.writeHead(response.status, headers)
    if (response.body === null || req.method === "HEAD") {
      res.end()
      return
    }
    const text = jsonTextOf(response)
    // The same bytes and the same backpressure as one chunk read from the body.
    if (text !== undefined) return writeText(res, text)
    const reader = response.body.getReader()
    res.on("close", () => void reader.cancel().catch(() => undefined))
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        // Backpressure: read no further until the socket drains; a client that does not read
        // for SLOW_CLIENT_MS is dropped, so it cannot make the server hold its backlog.
        if (!res.write(value) && !(await drained(res))) {
          res.destroy()
          break
        }
      }
    } catch {
      // The body failed mid-way (its source ended abnormally): the headers are sent, so end the connection.
      res.destroy()
    } finally {
      res.end()
    }
  }

/** A listening server: its port, an abrupt `close`, and a graceful `shutdown`. */
export interface ListeningServer {
  readonly server: Server
  readonly port: number
  /** Closes every connection now. */
  readonly close: () => Promise<void>
  /**
   * Stops accepting connections, lets the requests in flight finish (at most `graceMs`), closes
   * connections as their answers end, then cuts what is left. `inTime`: all finished in the grace.
   */
  readonly shutdown: (graceMs: number) => Promise<{ readonly inTime: boolean; readonly cut: number }>
}

/** Starts a Node server for `handler`; resolves once it listens (port 0 picks a free port). */
export const listen = (
  handler: (request: Request) => Promise<Response>,
  port: number,
  host = "127.0.0.1",
  extra?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<ListeningServer> =>
  new Promise((resolve, reject) => {
    const listener = nodeListener(handler)
    // Requests whose answer is not yet finished: a graceful shutdown waits for them.
    let inFlight = 0
    let draining = false
    const server = createServer((req, res) => {
      inFlight++
      // While draining, every answer closes its connection, so keep-alive clients go elsewhere.
      if (draining) res.setHeader("connection", "close")
      res.once("close", () => {
        inFlight--
      })
      if (extra?.(req, res)) return
      void listener(req, res)
    })
    server.on("error", reject)
    server.listen(port, host, () => {
      const address = server.address()
      const actual = typeof address === "object" && address !== null ? address.port : port
      resolve({
        server,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
        shutdown: async (graceMs) => {
          draining = true
          // Stop accepting. A connection closes once idle: at once if it is, after its answer if busy
          // (answers now say `connection: close`); `close`'s callback fires when none is left.
          let allClosed = false
          const closed = new Promise<void>((done) => server.close(() => done())).then(() => {
            allClosed = true
          })
          const deadline = performance.now() + graceMs
          while (!allClosed && performance.now() < deadline) {
            server.closeIdleConnections()
            await Promise.race([closed, new Promise((r) => setTimeout(r, 25))])
          }
          const cut = allClosed ? 0 : inFlight
          // Past the grace, what is still open is cut.
          if (!allClosed) server.closeAllConnections()
          await closed
          return { inTime: cut === 0 && allClosed, cut }
        },
      })
    })
  })
