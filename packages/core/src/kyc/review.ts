/**
 * The reviewer's side of KYC (the back-office console): the queue of verifications by RP and
 * status, one verification's file (scores against the thresholds, extracted fields beside the
 * customer's record, images, history), its images decrypted for the reviewer's view only, and
 * the decision and erasure by verification id — through the same commands the API uses.
 */
import { Effect, Option } from "effect"
import { KycVerificationNotFound } from "./errors.ts"
import type { KycStatus, KycVerification } from "./model.ts"
import { KycAudit, KycImages, KycSettings, KycVerifications } from "./ports.ts"
import { eraseCustomer, openImage, reviewVerification } from "./verify.ts"

const byId = (verificationId: string) =>
  Effect.flatMap(KycVerifications, (r) => r.findById(verificationId)).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new KycVerificationNotFound()), onSome: Effect.succeed })),
  )

/** One line of the review queue. */
export const queueEntry = (v: KycVerification) => ({
  id: v.id,
  clientId: v.clientId,
  customerId: v.customerId,
  status: v.status,
  reasons: v.reasons,
  faceMatchScore: v.faceMatchScore,
  livenessScore: v.livenessScore,
  updatedAt: new Date(v.updatedAt).toISOString(),
})

/** The review queue: verifications newest first (at most 200), of one RP and one status when given. */
export const reviewQueue = (filter: { readonly clientId?: string | undefined; readonly status?: KycStatus | undefined }) =>
  Effect.map(
    Effect.flatMap(KycVerifications, (r) => r.list({ ...filter, limit: 200 })),
    (list) => list.map(queueEntry),
  )

/** One verification's file for the reviewer: scores and thresholds, the extracted fields and the record, images (ids only), history. */
export const reviewFile = (verificationId: string) =>
  Effect.gen(function* () {
    const v = yield* byId(verificationId)
    const { thresholds } = yield* KycSettings
    const images = yield* Effect.flatMap(KycImages, (r) =>
      Effect.zipWith(r.listFor(v.id, "document"), r.listFor(v.id, "selfie"), (documents, selfies) => [
        ...documents,
        // only the selfie of the capture that gave the current face verdict is the one judged
        ...selfies.filter((s) => s.id === v.selfieImageId),
      ]),
    )
    const history = yield* Effect.flatMap(KycAudit, (a) => a.listFor(v.id))
    return {
      ...queueEntry(v),
      record: { customerId: v.customerId, phoneNumber: v.phoneNumber, rpUrn: v.rpUrn, createdAt: new Date(v.createdAt).toISOString() },
      document: v.document,
      thresholds,
      images: images.map((i) => ({ id: i.id, kind: i.kind, position: i.position, contentType: i.contentType })),
      history: history.map((h) => ({ action: h.action, from: h.fromStatus, to: h.toStatus, reasons: h.reasons, at: new Date(h.at).toISOString() })),
    }
  })

/** One of a verification's images, decrypted for the reviewer (404 when it is not that verification's). */
export const reviewImage = (verificationId: string, imageId: string) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(KycImages, (r) => r.findById(imageId))
    if (Option.isNone(found) || found.value.verificationId !== verificationId) return yield* new KycVerificationNotFound()
    const bytes = yield* openImage(imageId)
    if (Option.isNone(bytes)) return yield* new KycVerificationNotFound()
    return { contentType: found.value.contentType, bytes: bytes.value }
  })

/** The reviewer's decision by verification id: the API's `reviewVerification` (same move, audit line, webhooks). */
export const decideReview = (verificationId: string, decision: "approve" | "reject") =>
  Effect.gen(function* () {
    const v = yield* byId(verificationId)
    const verdict = yield* reviewVerification(v.clientId, { customer_id: v.customerId, decision })
    return { verification: v, verdict }
  })

/** Erasure by verification id: the API's `eraseCustomer`. */
export const eraseVerification = (verificationId: string) =>
  Effect.gen(function* () {
    const v = yield* byId(verificationId)
    yield* eraseCustomer(v.clientId, { customer_id: v.customerId })
    return v
  })
