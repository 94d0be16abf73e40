/**
 * The live event stream (`GET /v2/events`, docs/events.md) as an async iterable that resumes by itself:
 * when the connection drops it reconnects with `Last-Event-ID` (the id of the last event it yielded),
 * after the server's `retry:` hint, so no event is missed and none is repeated.
 */

/** One event of the stream. `id` is its position in the log (absent on `connected`). */
export interface SignetEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
}

/** The record `data` carries on `signing_request_*` events. */
export interface SigningEventData {
  readonly id: string
  readonly status: "pending_auth" | "signed" | "partial" | "failed" | "expired"
  readonly document_hash: string
  readonly created_at: string
  readonly signed_at: string | null
  readonly error_message: string | null
}

/** Where to connect and from which event on. */
export interface EventStreamOptions {
  /** the engine's mount point, e.g. `https://signet.example.com/api` */
  readonly baseUrl: string
  /** the signed-in user's access token */
  readonly accessToken: string
  /** resume after this event (an id from an earlier stream); without it the stream starts at the newest event */
  readonly lastEventId?: string
  /** ends the stream (the iteration then finishes) */
  readonly signal?: AbortSignal
  /** ms before reconnecting when the server gave no `retry:` hint (1,000) */
  readonly retryMs?: number
  /** give up after this many failed connections in a row (an HTTP error answer is thrown at once) */
  readonly maxReconnects?: number
  readonly fetch?: typeof globalThis.fetch
  /** told of every (re)connection, with the `Last-Event-ID` it sent */
  readonly onConnect?: (lastEventId: string | undefined) => void
}

/** An event stream that remembers how far it got. */
export interface EventStream extends AsyncIterable<SignetEvent> {
  /** the id of the last event yielded: give it as `lastEventId` to a later stream to resume there */
  readonly lastEventId: string | undefined
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })

/** Opens the event stream of the user whose token is given; iterate it with `for await`. */
export const streamEvents = (options: EventStreamOptions): EventStream => {
  const doFetch = options.fetch ?? globalThis.fetch
  let lastEventId = options.lastEventId
  let retryMs = options.retryMs ?? 1000
  const aborted = (): boolean => options.signal?.aborted === true
  const url = `${options.baseUrl.replace(/\/+$/, "")}/v2/events`

  async function* events(): AsyncGenerator<SignetEvent> {
    let failures = 0
    while (!aborted()) {
      let response: Response
      try {
        options.onConnect?.(lastEventId)
        response = await doFetch(url, {
          headers: {
            accept: "text/event-stream",
            authorization: `Bearer ${options.accessToken}`,
            ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}),
          },
          ...(options.signal !== undefined ? { signal: options.signal } : {}),
        })
      } catch (e) {
        if (aborted()) return
        if (++failures > (options.maxReconnects ?? Number.POSITIVE_INFINITY)) throw e
        await sleep(retryMs, options.signal)
        continue
      }
      if (!response.ok || response.body === null) {
        const text = await response.text().catch(() => "")
        let message = text
        try {
          message = (JSON.parse(text) as { error?: string }).error ?? text
        } catch {}
        throw new Error(`GET /v2/events answered ${response.status}: ${message}`)
      }
      failures = 0
      const decoder = new TextDecoder()
      let buffer = ""
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n")
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            let event = ""
            let id: string | undefined
            const data: Array<string> = []
            for (const line of block.split("\n")) {
              if (line === "" || line.startsWith(":")) continue
              const colon = line.indexOf(":")
              const field = colon < 0 ? line : line.slice(0, colon)
              const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "")
              if (field === "event") event = value
              else if (field === "data") data.push(value)
              else if (field === "id") id = value
              else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value)
            }
            if (event === "" && data.length === 0) continue
            if (id !== undefined && id !== "") lastEventId = id
            yield { id: id === "" ? undefined : id, event: event || "message", data: data.join("\n") }
          }
        }
      } catch {
        // a dropped connection: resume below
      }
      if (aborted()) return
      await sleep(retryMs, options.signal)
    }
  }

  const iterable = { [Symbol.asyncIterator]: () => events() }
  return Object.defineProperty(iterable, "lastEventId", { get: () => lastEventId, enumerable: true }) as unknown as EventStream
}
