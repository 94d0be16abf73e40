/** Single hash signing: create a request (bearer user), complete it with a passkey assertion. */
import { Clock, Effect, Option, Schema } from "effect"
import { DocumentHashAndCredentialRequired, NoSigningCredential } from "./errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { RpOriginNotAuthorized } from "../rp/errors.ts"
import type { Passkey } from "../identity/model.ts"
import { Passkeys } from "../identity/ports.ts"
import { SigningRequests } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import type { TimestampAuthority } from "../pki/timestamp-authority.ts"
import { Loa } from "../rp/model.ts"
import { requireLoa } from "../rp/loa.ts"
import { planInForce } from "../rp/plan-in-force.ts"
import { enqueueCompletion, pokeDeliveries } from "../events/outbox.ts"
import { DeliveryPolicy } from "../events/ports.ts"
import type { BearerUser } from "../identity/access-token.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { fromHex, toBase64 } from "../kernel/encoding.ts"
import { signDigest } from "../pki/cms.ts"
import { stampSignatureValue } from "../pki/timestamp-reply.ts"
import { signingIdentityFor } from "../pki/signer-certificate.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { token, uuid } from "../ports/random.ts"
import { countingQuotaRefusals, reserveSignatures } from "../rp/quota.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import { notifyUserEvents } from "../events/stream.ts"
import { completePending, namedApprover, type SigningServices } from "./completion.ts"
import { linkedChallenge, pendingChallenge } from "./dynamic-link.ts"
import { recordRequestEvent } from "./events.ts"
import { isPadesFormat, isTimestampedFormat, SignatureFormat, type SigningRequest } from "./model.ts"
import { callbackUrlProblem, isHexDigest, PENDING_LIFETIME_MS } from "./rules.ts"

/** The create body as it arrives; the checks below give the spec's messages. */
export interface CreateSigningRequest {
  readonly documentHash?: string | undefined
  readonly credentialId?: string | undefined
  readonly documentName?: string | undefined
  readonly signatureFormat?: string | undefined
  readonly loa?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly rpOrigin?: string | undefined
}

const oneOf = <A, I>(schema: Schema.Schema<A, I>, field: string, value: string | undefined, fallback: A) =>
  value === undefined
    ? Effect.succeed(fallback)
    : Schema.decodeUnknown(schema)(value).pipe(
        Effect.mapError(() => new InvalidRequest({ detail: `${field} must be one of ${String(schema.ast).replace(/"/g, "")}` })),
      )

/** Checks the parts of a creation shared by single requests and batches: RP, origin, callback. */
export const signingContext = (user: BearerUser, input: { readonly callbackUrl?: string | undefined; readonly rpOrigin?: string | undefined }) =>
  Effect.gen(function* () {
    if (input.callbackUrl !== undefined) {
      // the strict rule unless the engine was given the development switch
      const policy = yield* Effect.serviceOption(DeliveryPolicy)
      const problem = callbackUrlProblem(input.callbackUrl, Option.isSome(policy) && policy.value.allowLoopbackHttp)
      if (problem !== undefined) return yield* new InvalidRequest({ detail: problem })
    }
    const rp = yield* approvedRelyingParty(user.clientId)
    if (input.rpOrigin !== undefined && !rp.signingOrigins.includes(input.rpOrigin)) {
      return yield* new RpOriginNotAuthorized({ origin: input.rpOrigin })
    }
    return rp
  })

/** The bearer user's own passkey among what was `found`, or 404 `No signing credential found for user`. */
const ownPasskey = (userId: string, found: Option.Option<Passkey>) =>
  Option.isSome(found) && found.value.userId === userId ? Effect.succeed(found.value) : Effect.fail(new NoSigningCredential())

/** The bearer user's own passkey, or 404 `No signing credential found for user`. */
export const signersPasskey = (userId: string, credentialId: string) =>
  Effect.flatMap(Passkeys, (p) => p.findById(credentialId)).pipe(Effect.flatMap((found) => ownPasskey(userId, found)))

/** `POST /v2/sign/single`: a pending request whose challenge is linked to the document hash. */
export const createSigningRequest = (user: BearerUser, input: CreateSigningRequest) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (!input.documentHash || !input.credentialId) return yield* new DocumentHashAndCredentialRequired()
    if (!isHexDigest(input.documentHash)) {
      return yield* new InvalidRequest({ detail: "documentHash must be a hex SHA-256 (64 hexadecimal characters)" })
    }
    const format = yield* oneOf(SignatureFormat, "signatureFormat", input.signatureFormat, "CAdES-BASELINE-B")
    const loa = yield* oneOf(Loa, "loa", input.loa, "LOA-2")
    const credentialId = input.credentialId
    const storage = yield* Storage
    // The reads run in the unit's transaction too: outside it, each would wait on SQLite for the
    // connection until the commit group in progress is durable, and then the unit for the next one.
    const request = yield* storage
      .transaction(
        Effect.gen(function* () {
          // Read first, judged after the RP and the plan (their refusals come first): on PostgreSQL the
          // unit's BEGIN goes with its first statement, and the RP and plan are usually cached reads.
          const found = yield* Effect.flatMap(Passkeys, (p) => p.findById(credentialId))
          const rp = yield* signingContext(user, input)
          const inForce = yield* planInForce(rp)
          yield* requireLoa(loa, rp, inForce.highestLoa)
          const passkey = yield* ownPasskey(user.userId, found)
          yield* reserveSignatures(rp, user.userId, 1, "single", inForce)
          const now = yield* Clock.currentTimeMillis
          const request: SigningRequest = {
            id: yield* uuid,
            userId: user.userId,
            clientId: rp.clientId,
            credentialId: passkey.id,
            documentHash: input.documentHash!.toLowerCase(),
            documentName: input.documentName ?? null,
            signatureFormat: format,
            loa,
            callbackUrl: input.callbackUrl ?? null,
            rpOrigin: input.rpOrigin ?? null,
            status: "pending_auth",
            nonce: yield* token(32),
            failedAttempts: 0,
            createdAt: now,
            expiresAt: now + PENDING_LIFETIME_MS,
            completedAt: null,
            signature: null,
            certificateSerial: null,
            errorMessage: null,
          }
          yield* Effect.flatMap(SigningRequests, (r) => r.insert(request))
          yield* recordRequestEvent(request, "signing_request_created", now)
          return request
        }),
      )
      .pipe(countingQuotaRefusals(user.clientId))
    yield* notifyUserEvents(user.userId)
    return {
      requestId: request.id,
      status: "pending_auth" as const,
      authUrl: `${settings.basePath}/v2/sign/auth/${request.id}`,
      challenge: yield* pendingChallenge({ kind: "request", id: request.id, documentHash: request.documentHash, nonce: request.nonce }),
    }
  })

/** ISO 8601 with a numeric offset (UTC), e.g. `2026-11-25T21:30:00.000+00:00`. */
export const isoWithOffset = (ms: number): string => new Date(ms).toISOString().replace("Z", "+00:00")

/**
 * `POST /v2/sign/auth/{requestId}`: verifies the assertion over the recomputed challenge,
 * then signs. A refused assertion is counted (the fifth fails the request) and answered with
 * its 403; an expired request is closed and answers 410; everything is recorded first.
 */
export const completeSigningRequest = (requestId: string, assertion: Assertion) =>
  Effect.gen(function* () {
    const requests = yield* SigningRequests
    let enqueued = 0
    const completed = yield* completePending<SigningRequest, SigningServices | TimestampAuthority>(
      {
        find: requests.findById(requestId),
        update: requests.update,
        record: (r, type, at) =>
          Effect.gen(function* () {
            yield* recordRequestEvent(r, type, at)
            if (type === "signing_request_created") return
            const written = yield* enqueueCompletion({
              clientId: r.clientId,
              eventType: "sign.complete",
              orderingKey: r.id,
              callbackUrl: r.callbackUrl,
              data: {
                requestId: r.id,
                status: r.status,
                documentHash: r.documentHash,
                signature: r.signature,
                timestamp: r.completedAt === null ? null : isoWithOffset(r.completedAt),
                loa: r.loa,
                errorMessage: r.errorMessage,
              },
            })
            enqueued += written
          }),
        challenge: (r) => linkedChallenge({ kind: "request", id: r.id, documentHash: r.documentHash, nonce: r.nonce }),
        approver: namedApprover,
        // The workers' poll costs a query on every node: wake them only when this commit wrote deliveries.
        notify: (o) =>
          Effect.zipRight(
            notifyUserEvents(o.userId),
            Effect.suspend(() => (enqueued > 0 ? pokeDeliveries : Effect.void)),
          ),
        sign: (r, signer, at, _approver, certificates) =>
          Effect.gen(function* () {
            const identity = yield* signingIdentityFor(signer, certificates)
            const cms = yield* signDigest({
              identity,
              digest: fromHex(r.documentHash)!,
              digestAlgorithm: "SHA-256",
              signingTime: isPadesFormat(r.signatureFormat) ? null : new Date(at),
              timestamp: isTimestampedFormat(r.signatureFormat) ? stampSignatureValue : undefined,
            })
            return { ...r, status: "completed" as const, signature: toBase64(cms), certificateSerial: identity.certificate.serial }
          }),
      },
      assertion,
    )
    return {
      status: "completed" as const,
      signature: completed.signature!,
      timestamp: isoWithOffset(completed.completedAt!),
      loa: completed.loa,
    }
  })
