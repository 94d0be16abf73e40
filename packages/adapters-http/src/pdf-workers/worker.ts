/**
 * A PDF worker thread: runs the core's PDF jobs (prepare, scan, DSS) on messages from the pool
 * and answers plain data. A catalogued failure crosses as `{ _tag, detail }`; anything else as a
 * defect text. The pool kills this thread past its deadline or heap limit.
 */
import { pdfJobsInProcess, Sha256Streams, Sha2Streams } from "@signet/core/pdf-worker-api"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { parentPort } from "node:worker_threads"
import type { PdfJobMessage, PdfJobReply } from "./protocol.ts"

// Native SHA-256 for the byte ranges (the core's default is pure JavaScript).
const sha256Node = Layer.succeed(Sha256Streams, {
  create: () => {
    const hash = createHash("sha256")
    return { update: (bytes) => void hash.update(bytes), digest: () => new Uint8Array(hash.digest()) }
  },
})
// and native SHA-384/512 for signatures that name them
const sha2Node = Layer.succeed(Sha2Streams, {
  create: (algorithm) => {
    const hash = createHash(algorithm === "SHA-384" ? "sha384" : "sha512")
    return { update: (bytes) => void hash.update(bytes), digest: () => new Uint8Array(hash.digest()) }
  },
})

const run = (message: PdfJobMessage): Effect.Effect<unknown, unknown> => {
  switch (message.job) {
    case "prepare":
      return pdfJobsInProcess.prepare(message.pdf, message.options)
    case "prepareTimestamp":
      return pdfJobsInProcess.prepareTimestamp(message.pdf, message.placeholderBytes)
    case "scan":
      return pdfJobsInProcess.scan(message.pdf)
    case "appendDss":
      return pdfJobsInProcess.appendDss(message.pdf, message.material)
  }
}

const port = parentPort!
port.on("message", (message: PdfJobMessage) => {
  void Effect.runPromiseExit(Effect.provide(run(message), Layer.merge(sha256Node, sha2Node))).then((exit) => {
    let reply: PdfJobReply
    if (Exit.isSuccess(exit)) reply = { id: message.id, ok: true, value: exit.value }
    else {
      const failure = Cause.failureOption(exit.cause)
      const error = Option.getOrUndefined(failure) as { _tag?: unknown; detail?: unknown } | undefined
      reply =
        error !== undefined && typeof error._tag === "string" && typeof error.detail === "string"
          ? { id: message.id, ok: false, error: { _tag: error._tag, detail: error.detail } }
          : { id: message.id, ok: false, defect: Cause.pretty(exit.cause) }
    }
    port.postMessage(reply)
  })
})
port.postMessage({ ready: true })
