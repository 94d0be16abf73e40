/**
 * Hosted capture and phone handoff. Both ride on the liveness session: its token is the
 * only credential a browser holds. The desktop page gets it in the URL fragment; a phone
 * handoff *is* a liveness session whose token is the handoff id (a random capability in the
 * phone page's URL). With it a browser may upload frames (the relay), upload the document
 * (handoff only), finish the face step with a transaction id of the same verification, and
 * read the verification's status and reasons — never names, numbers or images.
 * docs/kyc.md ("Hosted capture", "Phone handoff").
 */
import { Clock, Effect, Option } from "effect"
import { KycVerificationNotFound, LivenessTransactionIdRequired } from "./errors.ts"
import { KycVerifications } from "./ports.ts"
import { sha256 } from "../kernel/digest.ts"
import { toHex, utf8 } from "../kernel/encoding.ts"
import type { KycCustomerBody, KycHandoffDocumentBody } from "./contract.ts"
import { countCaptureRequest, KYC_RELAY_PER_MINUTE, openLivenessSession, submitDocument, submitFace } from "./verify.ts"

/** Requests per minute per IP for the phone side of a handoff (page, status, document): the spec's 120, shared with the relay. */
export const KYC_HANDOFF_PHONE_PER_MINUTE = KYC_RELAY_PER_MINUTE

/** What a browser may learn about its verification: the state and its reason codes. */
export interface KycCaptureStatus {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
  /** seconds until the session token / handoff id stops working */
  readonly expiresIn: number
}

/** The six-digit code shown on both screens of a handoff, so the person can check the phone continues this desktop's session. */
export const handoffCode = (handoffId: string) =>
  Effect.map(sha256(utf8(`signet/kyc-handoff-code/v1:${handoffId}`)), (h) =>
    String((((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0) % 1_000_000).padStart(6, "0"),
  )

/** The verification a live session token (or handoff id) belongs to; unknown, superseded or expired → 404. */
export const verificationOfSession = (sessionToken: string | undefined) =>
  Effect.gen(function* () {
    if (sessionToken === undefined || sessionToken === "") return yield* new KycVerificationNotFound()
    const hash = toHex(yield* sha256(utf8(sessionToken)))
    const found = yield* Effect.flatMap(KycVerifications, (r) => r.findBySessionToken(hash))
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(found) || (found.value.sessionExpiresAt ?? 0) <= now) return yield* new KycVerificationNotFound()
    return { verification: found.value, expiresIn: Math.max(0, Math.floor((found.value.sessionExpiresAt! - now) / 1000)) }
  })

const statusOf = (status: string, reasons: ReadonlyArray<string>, expiresIn: number): KycCaptureStatus => ({ status, reasons, expiresIn })

/** `GET /kyc/capture/status` and `GET /kyc/handoff/{id}/status`: status and reasons of the session's verification. */
export const captureStatus = (sessionToken: string | undefined, clientIp: string, scope: "relay" | "handoff") =>
  Effect.gen(function* () {
    yield* countCaptureRequest(clientIp)
    const { verification: v, expiresIn } = yield* verificationOfSession(sessionToken)
    return statusOf(v.status, v.reasons, expiresIn)
  })

/**
 * `POST /kyc/capture/finish`: the hosted page completes the face step with the transaction id
 * the relay confirmed (the RP's backend would otherwise post it to `/kyc/customers/face`).
 * The transaction must belong to the session's verification (else 404), as at `/kyc/customers/face`.
 */
export const finishHostedCapture = (sessionToken: string | undefined, transactionId: unknown, clientIp: string) =>
  Effect.gen(function* () {
    yield* countCaptureRequest(clientIp)
    const { verification: v, expiresIn } = yield* verificationOfSession(sessionToken)
    if (typeof transactionId !== "string" || transactionId === "") return yield* new LivenessTransactionIdRequired()
    const verdict = yield* submitFace(v.clientId, { customer_id: v.customerId, livenessTransactionId: transactionId }, clientIp)
    return statusOf(verdict.status, verdict.reasons, expiresIn)
  })

/**
 * `POST /kyc/handoff` (RP backend): a liveness session for the customer whose token is the
 * handoff id. It supersedes the customer's previous session (one capture channel at a time).
 */
export const openHandoff = (clientId: string, body: KycCustomerBody, clientIp: string, basePath: string) =>
  Effect.gen(function* () {
    // Counted once, in the KYC counter, by openLivenessSession.
    const session = yield* openLivenessSession(clientId, body, clientIp, basePath)
    const handoffId = session.token
    return {
      handoffId,
      url: `${basePath}/kyc/handoff/${handoffId}`,
      statusUrl: `${basePath}/kyc/handoff/${handoffId}/status`,
      code: yield* handoffCode(handoffId),
      expiresIn: session.expiresIn,
      customer_id: session.customer_id,
      ...(session.rp_urn === undefined ? {} : { rp_urn: session.rp_urn }),
    }
  })

/** `GET /kyc/handoff/{id}/status` (desktop polling, phone): status, reasons, lifetime and the handoff's code. */
export const handoffStatus = (handoffId: string, clientIp: string) =>
  Effect.gen(function* () {
    const s = yield* captureStatus(handoffId, clientIp, "handoff")
    return { ...s, code: yield* handoffCode(handoffId) }
  })

/** The phone page's context: the handoff's code and remaining lifetime (404 when unknown or expired). */
export const handoffContext = (handoffId: string, clientIp: string) =>
  Effect.gen(function* () {
    yield* countCaptureRequest(clientIp)
    const { verification: v, expiresIn } = yield* verificationOfSession(handoffId)
    return { code: yield* handoffCode(handoffId), expiresIn, status: v.status }
  })

/** `POST /kyc/handoff/{id}/document`: the phone uploads the document; answers status and reasons only. */
export const submitHandoffDocument = (handoffId: string, body: KycHandoffDocumentBody, clientIp: string) =>
  Effect.gen(function* () {
    yield* countCaptureRequest(clientIp)
    const { verification: v, expiresIn } = yield* verificationOfSession(handoffId)
    const verdict = yield* submitDocument(v.clientId, { customer_id: v.customerId, images: body.images, image: body.image }, clientIp)
    return statusOf(verdict.status, verdict.reasons, expiresIn)
  })
