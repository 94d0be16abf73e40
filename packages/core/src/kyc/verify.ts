/**
 * KYC use cases behind the `/kyc/*` endpoints: start, document, liveness session, capture
 * relay, face, verdict read, compare, reviewer decision, erase and retention purge. Every
 * state change is stored with its audit entry in one transaction; images only encrypted.
 */
import { Clock, Effect, Either, Metric, Option } from "effect"
import {
  CustomerIdRequired,
  DocumentImageRequired,
  KycIdentityNotVerified,
  KycNotEnabled,
  KycStateConflict,
  KycVerificationNotFound,
  LivenessTransactionIdRequired,
  PhoneNumberRequired,
  PhoneNumberTaken,
  RpUrnNotOwned,
} from "./errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { kycOutcomes, withTags } from "../kernel/metrics.ts"
import { KycAudit, KycCaptures, KycImages, KycVerifications, DocumentReader, FaceMatcher, KycSettings, KycVault, LivenessProvider } from "./ports.ts"
import type { FaceProblem, KycImageKind, KycRpSettings, KycVerification } from "./model.ts"
import { Storage } from "../ports/storage.ts"
import { sha256 } from "../kernel/digest.ts"
import { fromBase64, toBase64, toHex, utf8 } from "../kernel/encoding.ts"
import { token, uuid } from "../ports/random.ts"
import { countRequest } from "../rp/quota.ts"
import type { KycCompareBody, KycCustomerBody, KycDocumentBody, KycFaceBody, KycReviewBody, KycStartBody, KycVerdictBody } from "./contract.ts"
import { judgeDocument } from "./document.ts"
import { enqueueCompletion, pokeDeliveries } from "../events/outbox.ts"
import { normaliseRpUrn, validateCustomerId, validatePhoneNumber } from "./identifiers.ts"
import { initialKycState, kycStep, type KycCommand } from "./machine.ts"

/** Requests per minute per IP for start, document, session, face, comparison and handoff together (the spec's limit). */
export const KYC_REQUESTS_PER_MINUTE = 20
/** Requests per minute per IP for the capture relay and the phone handoff together (the spec's limit). */
export const KYC_RELAY_PER_MINUTE = 120
/** Selfie and video (capture frames, the face step) per minute per IP (the spec's limit). */
export const KYC_SELFIE_VIDEO_PER_MINUTE = 60

/** The spec's one KYC counter per IP: start, document, session, face, comparison and handoff share it. */
export const countKycRequest = (clientIp: string) => countRequest(`kyc:${clientIp}`, KYC_REQUESTS_PER_MINUTE)
/** The one counter per IP of the capture relay and the phone handoff (pages, status, uploads). */
export const countCaptureRequest = (clientIp: string) => countRequest(`kyc-capture:${clientIp}`, KYC_RELAY_PER_MINUTE)
/** The counter per IP of selfies and video: capture frames through the relay and the face step. */
export const countSelfieOrVideo = (clientIp: string) => countRequest(`kyc-selfie:${clientIp}`, KYC_SELFIE_VIDEO_PER_MINUTE)

const text = (u: unknown): string | undefined => (typeof u === "string" ? (u.trim() === "" ? undefined : u) : typeof u === "number" ? String(u) : undefined)

/** `return_selfie`: `true` or `1` (also as strings); anything else is false. */
export const wantsSelfie = (u: unknown): boolean => u === true || u === 1 || u === "true" || u === "1"

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** KYC settings of an RP (disabled, RP scope when none were saved). */
export const kycSettingsOf = (clientId: string) =>
  Effect.flatMap(KycAudit, (a) => a.settingsOf(clientId)).pipe(
    Effect.map(Option.getOrElse((): KycRpSettings => ({ clientId, enabled: false, identityScope: "rp", updatedAt: 0 }))),
  )

/** Turns KYC on or off for an RP and sets its identity scope (administrators; docs/kyc.md). */
export const configureKyc = (clientId: string, input: { readonly enabled: boolean; readonly identityScope?: "rp" | "shared" }) =>
  Effect.gen(function* () {
    const current = yield* kycSettingsOf(clientId)
    const next: KycRpSettings = {
      clientId,
      enabled: input.enabled,
      identityScope: input.identityScope ?? current.identityScope,
      updatedAt: yield* Clock.currentTimeMillis,
    }
    yield* Effect.flatMap(KycAudit, (a) => a.saveSettings(next))
    return next
  })

/** 403 unless KYC is enabled for the RP. */
export const requireKycEnabled = (clientId: string) =>
  Effect.flatMap(kycSettingsOf(clientId), (s) => (s.enabled ? Effect.succeed(s) : Effect.fail(new KycNotEnabled())))

const customerIdOf = (body: KycCustomerBody) => {
  const raw = text(body["customer_id"])
  if (raw === undefined) return Effect.fail(new CustomerIdRequired())
  // Look-ups use the normalised form; an id that does not validate simply is not on file (404).
  return validateCustomerId(raw).pipe(Effect.orElseSucceed(() => raw.trim()))
}

const urnOf = (body: KycCustomerBody, clientId: string) => {
  const raw = body["rp_urn"]
  return typeof raw === "string" || typeof raw === "number" ? Effect.asSome(normaliseRpUrn(raw, clientId)) : Effect.succeedNone
}

/** The caller's verification for `customer_id` (404), checked against the `rp_urn` sent (403 foreign, 409 not this customer's). */
const verificationFor = (clientId: string, body: KycCustomerBody) =>
  Effect.gen(function* () {
    const customerId = yield* customerIdOf(body)
    const urn = yield* urnOf(body, clientId)
    const found = yield* Effect.flatMap(KycVerifications, (r) => r.findByCustomer(clientId, customerId))
    if (Option.isNone(found)) return yield* new KycVerificationNotFound()
    const v = found.value
    if (Option.isSome(urn) && v.rpUrn !== urn.value) {
      return yield* new RpUrnNotOwned({
        urn: urn.value,
        detail: v.rpUrn === null ? "this customer_id holds no rp_urn" : "this customer_id holds another rp_urn",
      })
    }
    return v
  })

const audit = (v: KycVerification, action: string, from: string | null) =>
  Effect.flatMap(KycAudit, (a) =>
    a.append({
      verificationId: v.id,
      clientId: v.clientId,
      action,
      fromStatus: from,
      toStatus: v.status,
      reasons: v.reasons,
      at: v.updatedAt,
    }),
  )

/** Stores `next` over `v` (compare-and-set on the version) with an audit entry. */
const save = (v: KycVerification, changes: Partial<KycVerification>, action: string) =>
  Effect.gen(function* () {
    const next: KycVerification = { ...v, ...changes, version: v.version + 1, updatedAt: yield* Clock.currentTimeMillis }
    const stored = yield* Effect.flatMap(KycVerifications, (r) => r.update(next, v.version)).pipe(
      Effect.catchTag("UniqueViolation", () => Effect.fail(new KycStateConflict())),
    )
    if (!stored) return yield* new KycStateConflict()
    if (next.status !== v.status || action !== "updated") yield* audit(next, action, v.status)
    // Outcomes by status and reason (a status reached, not every save): the reasons are a short fixed vocabulary.
    if (next.status !== v.status) {
      yield* Metric.increment(withTags(kycOutcomes, { status: next.status, reason: next.reasons.length === 0 ? "none" : next.reasons.join(",") }))
    }
    return next
  })

const step = (v: KycVerification, command: KycCommand) =>
  Effect.flatMap(KycSettings, (s) => {
    const moved = kycStep(v, command, s.thresholds)
    return Either.isLeft(moved) ? Effect.fail(moved.left) : Effect.succeed(moved.right.state)
  })

/** The verification handle of the spec. */
export const verificationHandle = (v: KycVerification, created: boolean) => ({
  customer_id: v.customerId,
  phone_number: v.phoneNumber,
  status: v.status,
  created,
  enrolled: v.status === "verified",
  ...(v.rpUrn === null ? {} : { rp_urn: v.rpUrn }),
})

const decodeImage = (value: unknown, index: number): Effect.Effect<Uint8Array, InvalidRequest> => {
  const raw = typeof value === "string" ? value.replace(/^data:[^,]*,/, "").replace(/\s+/g, "") : ""
  const bytes = raw === "" ? undefined : fromBase64(raw)
  return bytes === undefined || bytes.length === 0
    ? Effect.fail(new InvalidRequest({ detail: `images[${index}] is not a base64 image` }))
    : Effect.succeed(bytes)
}

const sealImage = (verificationId: string, kind: KycImageKind, position: number, bytes: Uint8Array) =>
  Effect.gen(function* () {
    const id = yield* uuid
    const sealed = yield* Effect.flatMap(KycVault, (vault) => vault.seal(bytes, `${verificationId}:${id}`))
    const image = { id, verificationId, kind, position, contentType: "image/jpeg", ciphertext: toBase64(sealed), createdAt: yield* Clock.currentTimeMillis }
    yield* Effect.flatMap(KycImages, (r) => r.insert(image)).pipe(Effect.orDie)
    return image
  })

/** A stored image decrypted (None when absent): only for the verdict's selfie, the face steps and the reviewer's view. */
export const openImage = (imageId: string | null) =>
  Effect.gen(function* () {
    if (imageId === null) return Option.none<Uint8Array>()
    const found = yield* Effect.flatMap(KycImages, (r) => r.findById(imageId))
    if (Option.isNone(found)) return Option.none<Uint8Array>()
    const vault = yield* KycVault
    return Option.some(yield* vault.open(fromBase64(found.value.ciphertext)!, `${found.value.verificationId}:${found.value.id}`))
  })

/** The verdict of the spec; `selfie` only when asked for and `verified`. */
export const verdictOf = (v: KycVerification, returnSelfie: boolean) =>
  Effect.gen(function* () {
    const d = v.document
    const selfie = returnSelfie && v.status === "verified" ? yield* openImage(v.selfieImageId) : Option.none<Uint8Array>()
    return {
      customer_id: v.customerId,
      status: v.status,
      verified_name: d === null ? "" : fullNameOf(d.surname, d.givenNames),
      doc_type: d?.docType ?? "",
      doc_number: d?.docNumber ?? "",
      personal_number: d?.personalNumber ?? "",
      doc_expiry: d?.docExpiry ?? null,
      nationality: d?.nationality ?? "",
      face_match_score: v.faceMatchScore,
      liveness_score: v.livenessScore,
      reasons: v.reasons,
      selfie: Option.match(selfie, { onNone: () => null, onSome: (b) => ({ content_type: "image/jpeg", data: toBase64(b) }) }),
    }
  })

/** `SURNAME, Given Names` (the form compare takes). */
export const fullNameOf = (surname: string, givenNames: string): string =>
  `${surname.toUpperCase()}, ${givenNames.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase())}`

/** `POST /kyc/verifications`: a new verification (`created` true) or the customer's existing one. */
export const startVerification = (clientId: string, body: KycStartBody, clientIp: string) =>
  Effect.gen(function* () {
    yield* countKycRequest(clientIp)
    const rawCustomer = text(body["customer_id"])
    if (rawCustomer === undefined) return yield* new CustomerIdRequired()
    const rawPhone = text(body["phone_number"])
    if (rawPhone === undefined) return yield* new PhoneNumberRequired()
    const customerId = yield* validateCustomerId(rawCustomer)
    const phone = yield* validatePhoneNumber(rawPhone)
    const urn = Option.getOrNull(yield* urnOf(body, clientId))
    const repo = yield* KycVerifications
    const taken = (detail: string) => new PhoneNumberTaken({ phoneNumber: phone, detail })
    return yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          const existing = yield* repo.findByCustomer(clientId, customerId)
          if (Option.isSome(existing)) {
            const v = existing.value
            if (v.phoneNumber !== phone) return yield* taken(`customer_id ${customerId} holds another phone number`)
            if (urn === null || v.rpUrn === urn) return verificationHandle(v, false)
            if (v.rpUrn !== null) return yield* taken(`customer_id ${customerId} holds another rp_urn`)
            if (Option.isSome(yield* repo.findByRpUrn(clientId, urn))) return yield* taken(`rp_urn ${urn} is held by another customer`)
            return verificationHandle(yield* save(v, { rpUrn: urn }, "rp_urn_recorded"), false)
          }
          if (Option.isSome(yield* repo.findByPhone(clientId, phone))) return yield* taken("it is registered to another customer_id")
          if (urn !== null && Option.isSome(yield* repo.findByRpUrn(clientId, urn))) return yield* taken(`rp_urn ${urn} is held by another customer`)
          const now = yield* Clock.currentTimeMillis
          const v: KycVerification = {
            id: yield* uuid,
            clientId,
            customerId,
            phoneNumber: phone,
            rpUrn: urn,
            ...initialKycState,
            reasons: [],
            sessionTokenHash: null,
            sessionExpiresAt: null,
            selfieImageId: null,
            createdAt: now,
            updatedAt: now,
            version: 1,
          }
          yield* repo.insert(v).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(taken(`${e.what} is held by another customer`))))
          yield* audit(v, "started", null)
          return verificationHandle(v, true)
        }),
      ),
    )
  })

/** `POST /kyc/customers/document`: reads and judges the document (front then back, or the passport photo page). */
export const submitDocument = (clientId: string, body: KycDocumentBody, clientIp: string) =>
  Effect.gen(function* () {
    yield* countKycRequest(clientIp)
    yield* customerIdOf(body)
    const list: ReadonlyArray<unknown> = Array.isArray(body["images"])
      ? body["images"]
      : body["image"] !== undefined && body["image"] !== null && body["image"] !== ""
        ? [body["image"]]
        : []
    if (list.length === 0) return yield* new DocumentImageRequired()
    const images = yield* Effect.forEach(list, decodeImage)
    const v = yield* verificationFor(clientId, body)
    const outcome = judgeDocument(yield* Effect.flatMap(DocumentReader, (r) => r.read(images)), isoDay(yield* Clock.currentTimeMillis))
    const moved = yield* step(v, { _tag: "SubmitDocument", outcome })
    const saved = yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          yield* Effect.flatMap(KycImages, (r) => r.removeFor(v.id, "document"))
          yield* Effect.forEach(images, (bytes, i) => sealImage(v.id, "document", i, bytes))
          return yield* save(v, { ...moved, selfieImageId: null }, "document_submitted")
        }),
      ),
    )
    return yield* verdictOf(saved, false)
  })

/** `POST /kyc/customers/liveness-session`: a token for 600 s; the previous token stops working. */
export const openLivenessSession = (clientId: string, body: KycCustomerBody, clientIp: string, basePath: string) =>
  Effect.gen(function* () {
    yield* countKycRequest(clientIp)
    yield* customerIdOf(body)
    const v = yield* verificationFor(clientId, body)
    const settings = yield* KycSettings
    const secret = yield* token(32)
    const now = yield* Clock.currentTimeMillis
    yield* save(
      v,
      { sessionTokenHash: toHex(yield* sha256(utf8(secret))), sessionExpiresAt: now + settings.sessionTtlSeconds * 1000 },
      "liveness_session_opened",
    )
    return {
      url: `${basePath}/kyc/faceapi`,
      token: secret,
      expiresIn: settings.sessionTtlSeconds,
      customer_id: v.customerId,
      ...(v.rpUrn === null ? {} : { rp_urn: v.rpUrn }),
    }
  })

/**
 * The capture pass-through behind the session `url`: frames go to the liveness provider;
 * a confirmed capture gives a one-time `transactionId` bound to the session's verification.
 * An unknown, superseded or expired token is 404 `KYC verification not found`.
 */
export const relayCapture = (sessionToken: string | undefined, frames: ReadonlyArray<unknown>, clientIp: string) =>
  Effect.gen(function* () {
    yield* countCaptureRequest(clientIp)
    yield* countSelfieOrVideo(clientIp)
    if (sessionToken === undefined || sessionToken === "") return yield* new KycVerificationNotFound()
    const found = yield* Effect.flatMap(KycVerifications, (r) => Effect.flatMap(sha256(utf8(sessionToken)), (h) => r.findBySessionToken(toHex(h))))
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(found) || (found.value.sessionExpiresAt ?? 0) <= now) return yield* new KycVerificationNotFound()
    if (frames.length === 0) return yield* new InvalidRequest({ detail: "frames is required (base64 JPEG frames)" })
    const bytes = yield* Effect.forEach(frames, decodeImage)
    const result = yield* Effect.flatMap(LivenessProvider, (p) => p.assess(bytes))
    if (result._tag === "Retry") return { status: "retry" as const, reason: result.reason }
    const v = found.value
    return yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          const selfie = yield* sealImage(v.id, "selfie", 0, result.selfie)
          const capture = { id: yield* uuid, verificationId: v.id, livenessScore: result.score, selfieImageId: selfie.id, createdAt: now, consumedAt: null }
          yield* Effect.flatMap(KycCaptures, (r) => r.insert(capture)).pipe(Effect.orDie)
          yield* audit(v, "liveness_captured", v.status)
          return { status: "confirmed" as const, transactionId: capture.id }
        }),
      ),
    )
  })

/** `POST /kyc/customers/face`: the live capture against the document's portrait. */
export const submitFace = (clientId: string, body: KycFaceBody, clientIp: string) =>
  Effect.gen(function* () {
    yield* countKycRequest(clientIp)
    yield* countSelfieOrVideo(clientIp)
    yield* customerIdOf(body)
    const transactionId = text(body["livenessTransactionId"])
    if (transactionId === undefined) return yield* new LivenessTransactionIdRequired()
    const v = yield* verificationFor(clientId, body)
    // The state's 409s come before the transaction is looked at (and spent).
    yield* step(v, { _tag: "SubmitFace", livenessScore: 1, faceMatchScore: 1 })
    const captures = yield* KycCaptures
    const capture = yield* captures.findById(transactionId)
    if (Option.isNone(capture) || capture.value.verificationId !== v.id || capture.value.consumedAt !== null) return yield* new KycVerificationNotFound()
    const documents = yield* Effect.flatMap(KycImages, (r) => r.listFor(v.id, "document"))
    const reference = yield* openImage(documents[0]?.id ?? null)
    const selfie = yield* openImage(capture.value.selfieImageId)
    if (Option.isNone(reference) || Option.isNone(selfie)) return yield* new KycVerificationNotFound()
    const compared = yield* Effect.flatMap(FaceMatcher, (m) => m.compare(reference.value, selfie.value))
    const moved = yield* step(
      v,
      compared._tag === "Compared"
        ? { _tag: "SubmitFace", livenessScore: capture.value.livenessScore, faceMatchScore: compared.similarity }
        : { _tag: "FaceUnusable", side: compared.side, reason: compared.reason },
    )
    const saved = yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          if (!(yield* captures.consume(transactionId, yield* Clock.currentTimeMillis))) return yield* new KycVerificationNotFound()
          // an unusable selfie is not kept as the face on file
          return yield* save(v, compared._tag === "Compared" ? { ...moved, selfieImageId: capture.value.selfieImageId } : moved, "face_submitted")
        }),
      ),
    )
    return yield* verdictOf(saved, wantsSelfie(body["return_selfie"]))
  })

/** `POST /kyc/customers/verification`: the current verdict (polled by hosted capture). */
export const readVerdict = (clientId: string, body: KycVerdictBody) =>
  Effect.flatMap(verificationFor(clientId, body), (v) => verdictOf(v, wantsSelfie(body["return_selfie"])))

/**
 * A reviewer's decision on a `needs_review` verification (docs/kyc.md), from the API or the
 * console: the move, its audit line and the RP's `kyc.reviewed` webhooks commit together.
 */
export const reviewVerification = (clientId: string, body: KycReviewBody) =>
  Effect.gen(function* () {
    const decision = body.decision
    const v = yield* verificationFor(clientId, body)
    const moved = yield* step(v, { _tag: "Review", decision })
    const saved = yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          const next = yield* save(v, moved, `reviewed_${decision}`)
          yield* enqueueCompletion({
            clientId,
            eventType: "kyc.reviewed",
            orderingKey: v.id,
            callbackUrl: null,
            data: {
              customer_id: next.customerId,
              ...(next.rpUrn === null ? {} : { rp_urn: next.rpUrn }),
              decision,
              status: next.status,
              reasons: next.reasons,
            },
          })
          return next
        }),
      ),
    )
    yield* pokeDeliveries
    return yield* verdictOf(saved, false)
  })

/** Erases a customer: the verification, its captures and every image; the audit log keeps an `erased` line. */
export const eraseCustomer = (clientId: string, body: KycCustomerBody) =>
  Effect.gen(function* () {
    const v = yield* verificationFor(clientId, body)
    yield* Effect.flatMap(Storage, (s) =>
      s.transaction(
        Effect.gen(function* () {
          yield* Effect.flatMap(KycVerifications, (r) => r.remove(v.id))
          yield* audit({ ...v, reasons: [], updatedAt: yield* Clock.currentTimeMillis }, "erased", v.status)
        }),
      ),
    )
    return { customer_id: v.customerId, erased: true }
  })

/** Deletes raw images older than the retention period; the number deleted. */
export const purgeKycImages = Effect.gen(function* () {
  const settings = yield* KycSettings
  const now = yield* Clock.currentTimeMillis
  return yield* Effect.flatMap(KycImages, (r) => r.purgeBefore(now - settings.retentionDays * 86_400_000))
})

const letters = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9,]+/g, " ")
    .replace(/\s*,\s*/g, ",")
    .trim()

/** `POST /kyc/customers/compare`: details and a photo against the verified identity on file (scope: docs/kyc.md). */
export const compareIdentity = (clientId: string, body: KycCompareBody, clientIp: string) =>
  Effect.gen(function* () {
    yield* countKycRequest(clientIp)
    const checks = body.checks ?? {}
    const merged: KycCustomerBody = { ...body, ...(body.rp_urn == null && checks.rp_urn != null ? { rp_urn: checks.rp_urn } : {}) }
    const customerId = yield* customerIdOf(merged)
    const settings = yield* kycSettingsOf(clientId)
    const own = yield* verificationFor(clientId, merged).pipe(
      Effect.map(Option.some),
      Effect.catchTag("KycVerificationNotFound", () => Effect.succeedNone),
    )
    let v = Option.filter(own, (x) => x.status === "verified")
    if (Option.isNone(v) && settings.identityScope === "shared") v = yield* Effect.flatMap(KycVerifications, (r) => r.findVerifiedAnywhere(customerId))
    if (Option.isNone(v))
      return yield* Option.isSome(own) ? Effect.fail(new KycIdentityNotVerified({ customerId })) : Effect.fail(new KycVerificationNotFound())
    const id = v.value
    const d = id.document!
    const matches: Record<string, boolean> = { customer_id: true }
    const pn = text(checks["personal_number"])
    if (pn !== undefined) matches["personal_number"] = pn.replace(/[\s-]/g, "").toUpperCase() === d.personalNumber.replace(/[\s-]/g, "").toUpperCase()
    const dob = text(checks["date_of_birth"])
    if (dob !== undefined) {
      const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(dob.trim())
      matches["date_of_birth"] = m !== null && d.dateOfBirth === `${m[3]}-${m[2]!.padStart(2, "0")}-${m[1]!.padStart(2, "0")}`
    }
    const name = text(checks["full_name"])
    if (name !== undefined) matches["full_name"] = letters(name) === letters(`${d.surname}, ${d.givenNames}`)
    // The spec's face.similarity is a number: 0 when nothing was compared (no image sent, or no face on file);
    // `checked` tells that apart from a real score of 0.
    // An image the matcher cannot use is not compared: `unusable` says which one and why.
    let face: { match: boolean; similarity: number; checked: boolean; unusable?: { side: "reference" | "probe"; reason: FaceProblem } } = {
      match: false,
      similarity: 0,
      checked: false,
    }
    if (checks["image"] !== undefined && checks["image"] !== null) {
      const photo = yield* decodeImage(checks["image"], 0)
      const documents = yield* Effect.flatMap(KycImages, (r) => r.listFor(id.id, "document"))
      const reference = Option.orElse(yield* openImage(id.selfieImageId), () => Option.none())
      const onFile = Option.isSome(reference) ? reference : yield* openImage(documents[0]?.id ?? null)
      if (Option.isSome(onFile)) {
        const compared = yield* Effect.flatMap(FaceMatcher, (m) => m.compare(onFile.value, photo))
        const thresholds = (yield* KycSettings).thresholds
        face =
          compared._tag === "Compared"
            ? { match: compared.similarity >= thresholds.match, similarity: compared.similarity, checked: true }
            : { match: false, similarity: 0, checked: false, unusable: { side: compared.side, reason: compared.reason } }
      }
    }
    return { customer_id: customerId, enrolled: true, matches, face }
  })
