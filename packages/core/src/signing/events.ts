/** Event records of signing requests and batches, as the stream and webhooks will carry them. */
import { Effect } from "effect"
import { sha256 } from "../kernel/digest.ts"
import { toHex, utf8 } from "../kernel/encoding.ts"
import { SigningEvents } from "./ports.ts"
import type { Batch, SigningEventType, SigningRequest } from "./model.ts"

/** The record's `status`: what a consumer tracks per id (`completed` is reported as `signed`). */
const recordStatus = (status: string): string => (status === "completed" ? "signed" : status)

/** The hex SHA-256 a batch is known by in event records: the digest of its ordered document list. */
export const batchDigest = (batch: Pick<Batch, "documents">): Effect.Effect<string> =>
  sha256(utf8(JSON.stringify(batch.documents.map((d) => [d.id, d.hash, d.hash_algo])))).pipe(Effect.map(toHex))

/** Appends an event of a request, in the caller's transaction. */
export const recordRequestEvent = (request: SigningRequest, type: SigningEventType, at: number) =>
  Effect.flatMap(SigningEvents, (log) =>
    log.record({
      type,
      subjectId: request.id,
      subjectKind: "request",
      userId: request.userId,
      clientId: request.clientId,
      status: recordStatus(request.status),
      documentHash: request.documentHash,
      createdAt: request.createdAt,
      signedAt: request.status === "completed" ? request.completedAt : null,
      errorMessage: request.errorMessage,
      recordedAt: at,
    }),
  )

/** Appends an event of a batch, in the caller's transaction. */
export const recordBatchEvent = (batch: Batch, type: SigningEventType, at: number) =>
  Effect.gen(function* () {
    const log = yield* SigningEvents
    const signed = batch.status === "completed" || batch.status === "partial"
    return yield* log.record({
      type,
      subjectId: batch.id,
      subjectKind: "batch",
      userId: batch.userId,
      clientId: batch.clientId,
      status: recordStatus(batch.status),
      documentHash: yield* batchDigest(batch),
      createdAt: batch.createdAt,
      signedAt: signed ? batch.completedAt : null,
      errorMessage: batch.errorMessage,
      recordedAt: at,
    })
  })
