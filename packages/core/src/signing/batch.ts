/** Batch signing: many document hashes approved by one assertion, each signed or failed on its own. */
import { Clock, Effect } from "effect"
import { InvalidRequest } from "../kernel/errors.ts"
import { Batches } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { enqueueCompletion, pokeDeliveries } from "../events/outbox.ts"
import type { BearerUser } from "../identity/access-token.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { fromHex, toBase64 } from "../kernel/encoding.ts"
import { signDigest } from "../pki/cms.ts"
import { signingIdentityFor } from "../pki/signer-certificate.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { token, uuid } from "../ports/random.ts"
import { countingQuotaRefusals, reserveSignatures } from "../rp/quota.ts"
import { notifyUserEvents } from "../events/stream.ts"
import { completePending, namedApprover, type SigningServices } from "./completion.ts"
import { linkedChallenge, pendingChallenge } from "./dynamic-link.ts"
import { recordBatchEvent } from "./events.ts"
import type { Batch, BatchDocument, BatchResult } from "./model.ts"
import { HASH_ALGORITHMS, isHexDigest, PENDING_LIFETIME_MS } from "./rules.ts"
import { signersPasskey, signingContext } from "./single.ts"

/** The batch create body as it arrives. */
export interface CreateBatch {
  readonly documents?: ReadonlyArray<BatchDocument> | undefined
  readonly credentialId?: string | undefined
  readonly callbackUrl?: string | undefined
}

/**
 * `POST /v2/sign/batch`. Each document counts as one signature of the daily allowance,
 * reserved at creation. A document's hash is judged only when signing, so a bad one fails
 * only itself (in `results`), never the batch.
 */
export const createBatch = (user: BearerUser, input: CreateBatch) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (input.documents === undefined || input.documents.length === 0 || !input.credentialId) {
      return yield* new InvalidRequest({ detail: "documents (at least one) and credentialId required" })
    }
    const ids = new Set<string>()
    for (const [i, d] of input.documents.entries()) {
      if (d.id.trim() === "") return yield* new InvalidRequest({ detail: `documents.${i}.id must not be empty` })
      if (ids.has(d.id)) return yield* new InvalidRequest({ detail: `documents.${i}.id ${d.id} appears twice` })
      ids.add(d.id)
    }
    const credentialId = input.credentialId
    const storage = yield* Storage
    // Read in the unit, as a single request's are (see createSigningRequest).
    const batch = yield* storage
      .transaction(
        Effect.gen(function* () {
          const rp = yield* signingContext(user, input)
          const passkey = yield* signersPasskey(user.userId, credentialId)
          yield* reserveSignatures(rp, user.userId, input.documents!.length, "batch")
          const now = yield* Clock.currentTimeMillis
          const batch: Batch = {
            id: yield* uuid,
            userId: user.userId,
            clientId: rp.clientId,
            credentialId: passkey.id,
            documents: input.documents!.map((d) => ({ id: d.id, hash: d.hash, hash_algo: d.hash_algo })),
            callbackUrl: input.callbackUrl ?? null,
            status: "pending_auth",
            nonce: yield* token(32),
            failedAttempts: 0,
            createdAt: now,
            expiresAt: now + PENDING_LIFETIME_MS,
            completedAt: null,
            results: null,
            errorMessage: null,
          }
          yield* Effect.flatMap(Batches, (b) => b.insert(batch)).pipe(Effect.orDie)
          yield* recordBatchEvent(batch, "signing_request_created", now)
          return batch
        }),
      )
      .pipe(countingQuotaRefusals(user.clientId))
    yield* notifyUserEvents(user.userId)
    return {
      batchId: batch.id,
      status: "pending_auth" as const,
      documentCount: batch.documents.length,
      authUrl: `${settings.basePath}/v2/sign/batch/${batch.id}/auth`,
      challenge: yield* pendingChallenge({ kind: "batch", id: batch.id, documents: batch.documents, nonce: batch.nonce }),
    }
  })

/** Why a document cannot be signed, or undefined when it can. */
export const documentProblem = (d: BatchDocument): string | undefined => {
  const algorithm = HASH_ALGORITHMS[d.hash_algo]
  if (algorithm === undefined) return "Unsupported hash algorithm"
  return isHexDigest(d.hash, algorithm.hexLength) ? undefined : "Invalid document hash"
}

/** Overall status of a completed batch: `completed` when all signed, `failed` when none, `partial` otherwise. */
export const overallStatus = (results: ReadonlyArray<BatchResult>): "completed" | "partial" | "failed" => {
  const signed = results.filter((r) => r.status === "signed").length
  return signed === results.length ? "completed" : signed === 0 ? "failed" : "partial"
}

/** `POST /v2/sign/batch/{batchId}/auth`: one assertion over the batch's linked challenge, then each document. */
export const completeBatch = (batchId: string, assertion: Assertion) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    let enqueued = 0
    const completed = yield* completePending<Batch, SigningServices>(
      {
        find: batches.findById(batchId),
        update: batches.update,
        record: (b, type, at) =>
          Effect.gen(function* () {
            yield* recordBatchEvent(b, type, at)
            if (type === "signing_request_created") return
            const written = yield* enqueueCompletion({
              clientId: b.clientId,
              eventType: "batch.complete",
              orderingKey: b.id,
              callbackUrl: b.callbackUrl,
              data: { batchId: b.id, status: b.status, results: b.results ?? [], errorMessage: b.errorMessage },
            })
            enqueued += written
          }),
        challenge: (b) => linkedChallenge({ kind: "batch", id: b.id, documents: b.documents, nonce: b.nonce }),
        approver: namedApprover,
        // The workers' poll costs a query on every node: wake them only when this commit wrote deliveries.
        notify: (o) =>
          Effect.zipRight(
            notifyUserEvents(o.userId),
            Effect.suspend(() => (enqueued > 0 ? pokeDeliveries : Effect.void)),
          ),
        sign: (b, signer, at, _approver, certificates) =>
          Effect.gen(function* () {
            const identity = yield* signingIdentityFor(signer, certificates)
            const results: Array<BatchResult> = []
            for (const d of b.documents) {
              const problem = documentProblem(d)
              if (problem !== undefined) {
                results.push({ documentId: d.id, status: "failed", error: problem })
                continue
              }
              const cms = yield* signDigest({
                identity,
                digest: fromHex(d.hash)!,
                digestAlgorithm: HASH_ALGORITHMS[d.hash_algo]!.name,
                signingTime: new Date(at),
              })
              results.push({ documentId: d.id, status: "signed", signature: toBase64(cms) })
            }
            const status = overallStatus(results)
            return { ...b, status, results, errorMessage: status === "failed" ? "No document of the batch could be signed" : null }
          }),
      },
      assertion,
    )
    return { status: completed.status, results: completed.results ?? [] }
  })
