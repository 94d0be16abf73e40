/** `POST /ssc/challenge` and `POST /ssc/finalize`: the operation of the signing-token flow. */
import { Clock, Effect } from "effect"
import { CredentialNotRegistered } from "../identity/errors.ts"
import { DocumentHashMismatch } from "./errors.ts"
import { InvalidRequest, OperationExpired } from "../kernel/errors.ts"
import { RpOriginNotAuthorized } from "../rp/errors.ts"
import { registeredPasskey, userHandleOf } from "../identity/enrolment.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { fromHex, toBase64 } from "../kernel/encoding.ts"
import { signDigest } from "../pki/cms.ts"
import { signingIdentityFor } from "../pki/signer-certificate.ts"
import { token, uuid } from "../ports/random.ts"
import type { Passkeys } from "../identity/ports.ts"
import { SscOperations } from "./ports.ts"
import { planInForce } from "../rp/plan-in-force.ts"
import { countRequest } from "../rp/quota.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import { completePending, type SigningServices } from "../signing/completion.ts"
import { linkedChallenge } from "../signing/dynamic-link.ts"
import { PENDING_LIFETIME_MS } from "../signing/rules.ts"
import type { SscMode, SscOperation } from "./model.ts"
import { verifySigningToken } from "./token.ts"

/** Anonymous challenges per minute per client IP (the spec's limit). */
export const ANONYMOUS_CHALLENGES_PER_MINUTE = 10
/**
 * Registered-mode challenges per minute per signing token: one signer's token cannot spend the
 * RP-wide allowance of all its users (docs/ssc.md). A signer needs one challenge per attempt.
 */
export const CHALLENGES_PER_TOKEN_PER_MINUTE = 5
/** Finalize attempts per minute per operation and client IP (the spec's limit). */
export const FINALIZE_ATTEMPTS_PER_MINUTE = 5

/** The challenge request as it arrives. */
export interface ChallengeRequest {
  readonly documentHash: string
  readonly documentName: string
  readonly rpOrigin: string
  readonly mode: SscMode
  readonly token: string
}

/**
 * Checks the token, that it was issued for this document, the parent origin and the mode;
 * counts the challenge (registered: the RP's per-minute allowance; anonymous: 10 per minute
 * per IP); opens an operation for five minutes whose challenge is linked to the hash.
 */
export const openOperation = (input: ChallengeRequest, clientIp: string) =>
  Effect.gen(function* () {
    const claims = yield* verifySigningToken(input.token)
    if (input.documentHash.toLowerCase() !== claims.documentHash) return yield* new DocumentHashMismatch()
    const rp = yield* approvedRelyingParty(claims.clientId)
    if (!rp.signingOrigins.includes(input.rpOrigin)) return yield* new RpOriginNotAuthorized({ origin: input.rpOrigin })
    if (input.mode === "registered" && claims.userId === null) {
      return yield* new InvalidRequest({ detail: "registered mode needs a token issued for a signer (signerEmail)" })
    }
    if (input.mode === "anonymous" && (claims.userId !== null || claims.loa !== "LOA-2")) {
      return yield* new InvalidRequest({ detail: "anonymous mode takes an LOA-2 token issued without a signer" })
    }
    if (input.mode === "registered") {
      // The token's own counter first, so a refused token never reaches the RP-wide one.
      yield* countRequest(`ssc-token:${claims.tokenId}`, CHALLENGES_PER_TOKEN_PER_MINUTE)
      yield* countRequest(`ssc:${rp.clientId}`, (yield* planInForce(rp)).allowance.requestsPerMinute)
    } else {
      yield* countRequest(`ssc-anonymous:${clientIp}`, ANONYMOUS_CHALLENGES_PER_MINUTE)
    }
    const now = yield* Clock.currentTimeMillis
    const operation: SscOperation = {
      id: yield* uuid,
      clientId: rp.clientId,
      tokenId: claims.tokenId,
      documentHash: claims.documentHash,
      documentName: input.documentName,
      loa: claims.loa,
      mode: input.mode,
      rpOrigin: input.rpOrigin,
      userId: claims.userId,
      credentialId: claims.credentialId,
      status: "pending_auth",
      nonce: yield* token(32),
      failedAttempts: 0,
      createdAt: now,
      expiresAt: now + PENDING_LIFETIME_MS,
      completedAt: null,
      signatureId: null,
      signature: null,
      certificateSerial: null,
      errorMessage: null,
    }
    yield* Effect.flatMap(SscOperations, (o) => o.insert(operation)).pipe(Effect.orDie)
    return {
      operationId: operation.id,
      challenge: yield* challengeOf(operation),
      credentialID: claims.loa === "LOA-4" ? claims.credentialId : null,
      expiresAt: new Date(operation.expiresAt).toISOString(),
      rpId: rp.webauthnRpId,
      mode: operation.mode,
    }
  })

const challengeOf = (o: SscOperation) => linkedChallenge({ kind: "ssc", id: o.id, documentHash: o.documentHash, nonce: o.nonce })

/** The finalize request as it arrives. */
export interface FinalizeRequest {
  readonly operationId: string
  readonly documentHash: string
  readonly assertion: Assertion
}

/**
 * Verifies the assertion against the operation and signs. An unknown, expired or already
 * finalized operation is 410 `Operation expired or not found`; a refused assertion its 403
 * (the fifth refusal closes the operation); 5 attempts per minute per operation and IP.
 */
export const finalizeOperation = (input: FinalizeRequest, clientIp: string) =>
  Effect.gen(function* () {
    yield* countRequest(`ssc-finalize:${input.operationId}:${clientIp}`, FINALIZE_ATTEMPTS_PER_MINUTE)
    const operations = yield* SscOperations
    const known = yield* operations.findById(input.operationId)
    if (known._tag === "Some" && known.value.documentHash !== input.documentHash.toLowerCase()) return yield* new DocumentHashMismatch()
    const done = yield* completePending<SscOperation, SigningServices | SscOperations | Passkeys>(
      {
        find: operations.findById(input.operationId),
        update: operations.update,
        record: () => Effect.void,
        challenge: challengeOf,
        approver: (op, assertion) =>
          Effect.gen(function* () {
            const passkey = yield* registeredPasskey(assertion.id)
            const handle = assertion.response.userHandle
            // LOA-4: only the bound passkey; registered mode: only the named signer's; anonymous: any enrolled passkey.
            if (
              (op.credentialId !== null && passkey.id !== op.credentialId) ||
              (op.userId !== null && passkey.userId !== op.userId) ||
              (handle != null && handle !== userHandleOf(passkey.userId))
            ) {
              return yield* new CredentialNotRegistered()
            }
            return { credentialId: passkey.id, userId: passkey.userId }
          }),
        sign: (op, signer, at, approver) =>
          Effect.gen(function* () {
            const identity = yield* signingIdentityFor(signer)
            const cms = yield* signDigest({ identity, digest: fromHex(op.documentHash)!, digestAlgorithm: "SHA-256", signingTime: new Date(at) })
            return {
              ...op,
              status: "finalized" as const,
              userId: approver.userId,
              credentialId: approver.credentialId,
              signatureId: yield* uuid,
              signature: toBase64(cms),
              certificateSerial: identity.certificate.serial,
            }
          }),
      },
      input.assertion,
    ).pipe(
      // For this flow every "not pending" answer is the spec's 410.
      Effect.catchTag("SigningRequestNotFound", () => Effect.fail(new OperationExpired())),
    )
    return {
      signatureId: done.signatureId!,
      signatureBase64: done.signature!,
      documentHash: done.documentHash,
      userVerified: true,
      credentialId: done.credentialId!,
      timestamp: Math.floor(done.completedAt! / 1000),
      mode: done.mode,
      levelOfAssurance: done.loa,
    }
  })
