/** Reading request bodies: content type, size limit (before buffering it all) and JSON syntax. */
import { concatBytes, jsonDepthProblem, MalformedJson, PayloadTooLarge, UnsupportedMediaType } from "@signet/core"
import { Effect } from "effect"

/** Default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

/** Reads at most `limit` bytes of a body without its web stream; undefined once that stream was read or locked. */
export type DirectBody = (limit: number) => Promise<Uint8Array> | undefined

// Bodies a host hands over as they arrived (node-server.ts): a web stream per request body is
// the dearest part of reading a small JSON body on Node.
const directBodies = new WeakMap<Request, DirectBody>()

/** Lets `readBody` read `request`'s body with `read` while its web stream is untouched. */
export const offerDirectBody = (request: Request, read: DirectBody): void => {
  directBodies.set(request, read)
}

/** Reads at most `limit` bytes of the body; more is 413 without reading the rest. */
export const readBody = (request: Request, limit: number): Effect.Effect<Uint8Array, PayloadTooLarge> =>
  Effect.tryPromise({
    try: async () => {
      const declared = Number(request.headers.get("content-length") ?? "0")
      if (declared > limit) throw new PayloadTooLarge({ limit })
      // A host may hand the body over only this way (node-server.ts), with no web stream at all.
      const direct = directBodies.get(request)?.(limit)
      if (direct !== undefined) return await direct
      if (request.body === null) return new Uint8Array()
      const reader = request.body.getReader()
      const chunks: Array<Uint8Array> = []
      let size = 0
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.byteLength
        if (size > limit) {
          // Stop reading but do not cancel: on Node, cancelling destroys the socket before the 413
          // can be sent. The host closes the connection after answering (node-server.ts).
          reader.releaseLock()
          throw new PayloadTooLarge({ limit })
        }
        chunks.push(value)
      }
      return concatBytes(chunks)
    },
    catch: (e) => (e instanceof PayloadTooLarge ? e : new PayloadTooLarge({ limit })),
  })

/** No body needs these keys; refusing them keeps merges and copies of a body from reaching a prototype. */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"])
const refusePrototypeKeys = (key: string, value: unknown): unknown => {
  if (PROTOTYPE_KEYS.has(key)) throw new Error(`the key ${key} is not allowed`)
  return value
}

// One decoder for every body: decoding whole buffers keeps no state between calls.
const UTF8 = new TextDecoder("utf-8", { fatal: false })

/**
 * Whether a key of the text could be one `refusePrototypeKeys` refuses: the word written out, or
 * any escape (`"\u005f_proto__"`). Most bodies are neither, and are parsed without the reviver,
 * which costs JSON.parse a call per value.
 */
const mayNamePrototypeKeys = (text: string): boolean =>
  text.includes("\\") || text.includes("__proto__") || text.includes("constructor") || text.includes("prototype")

/** Parses a JSON body; the content type must be `application/json` (415 otherwise). */
export const readJson = (request: Request, limit: number): Effect.Effect<unknown, PayloadTooLarge | UnsupportedMediaType | MalformedJson> =>
  Effect.gen(function* () {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
    if (type !== "application/json" && !type.endsWith("+json")) return yield* new UnsupportedMediaType({ expected: "application/json" })
    const bytes = yield* readBody(request, limit)
    const text = UTF8.decode(bytes)
    if (text.trim() === "") return yield* new MalformedJson({ detail: "the body is empty" })
    // checked before parsing, without recursion: decoding and error formatting walk the value recursively
    const tooDeep = jsonDepthProblem(text)
    if (tooDeep !== undefined) return yield* new MalformedJson({ detail: tooDeep })
    return yield* Effect.try({
      try: () => (mayNamePrototypeKeys(text) ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text)) as unknown,
      catch: (e) => new MalformedJson({ detail: e instanceof Error ? e.message : "not JSON" }),
    })
  })
