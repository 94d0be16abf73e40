/**
 * Step-up: a fresh passkey approval just before decryption, certificate revocation or secret
 * rotation. The challenge is bound to the user, the client the token was issued to, the action
 * and a random nonce; a verified assertion yields a proof that works once, for two minutes, for
 * exactly that user, client and action (docs/authorization.md#step-up).
 */
import { Clock, Effect, Option } from "effect"
import { CredentialNotRegistered } from "../identity/errors.ts"
import { OperationExpired } from "../kernel/errors.ts"
import { StepUpRequired } from "./errors.ts"
import { hashSecret } from "../kernel/secrets.ts"
import { Ceremonies, Passkeys } from "../identity/ports.ts"
import { Storage } from "../ports/storage.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { ceremonyRpFor } from "../identity/ceremony-rp.ts"
import { registeredPasskey } from "../identity/enrolment.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { verifyAssertion } from "../identity/webauthn/verify-assertion.ts"
import { sha256 } from "../kernel/digest.ts"
import { utf8 } from "../kernel/encoding.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { token, uuid } from "../ports/random.ts"
import { auditEvent } from "./audit.ts"
import { StepUpProofs, type StepUpAction } from "./ports.ts"
import { simpleWebAuthn } from "../identity/webauthn/library.ts"

/** How long a step-up proof stays usable (seconds). */
export const STEP_UP_PROOF_TTL_SECONDS = 120
/** The request header that carries a step-up proof. */
export const STEP_UP_HEADER = "signet-step-up"
/** The actions that need a step-up. */
export const STEP_UP_ACTIONS: ReadonlyArray<StepUpAction> = ["decrypt", "revoke-certificate", "rotate-secrets"]

const challengeOf = (input: {
  readonly id: string
  readonly userId: string
  readonly clientId: string
  readonly action: StepUpAction
  readonly nonce: string
}) => sha256(utf8(JSON.stringify(["signet/step-up/v1", input.id, input.userId, input.clientId, input.action, input.nonce])))

/** Starts a step-up for the token's user and client: WebAuthn request options allowing only the user's passkeys. */
export const requestStepUp = (user: BearerUser, action: StepUpAction) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const rp = yield* ceremonyRpFor(user.clientId)
    const id = yield* uuid
    const challenge = yield* challengeOf({ id, userId: user.userId, clientId: user.clientId, action, nonce: yield* token(16) })
    const allow = (yield* Effect.flatMap(Passkeys, (p) => p.listByUser(user.userId))).map((p) => p.id)
    const { generateAuthenticationOptions } = yield* simpleWebAuthn
    const options = yield* Effect.promise(() =>
      generateAuthenticationOptions({
        rpID: rp.rpId,
        challenge: new Uint8Array(challenge),
        timeout: settings.ceremonyTtlSeconds * 1000,
        userVerification: "required",
        allowCredentials: allow.map((credentialId) => ({ id: credentialId })),
      }),
    )
    const now = yield* Clock.currentTimeMillis
    yield* Effect.flatMap(Ceremonies, (c) =>
      c.insert({
        id,
        kind: `step-up:${action}`,
        challenge: options.challenge,
        userId: user.userId,
        email: null,
        displayName: null,
        emailVerificationId: null,
        clientId: user.clientId,
        rpId: rp.rpId,
        createdAt: now,
        expiresAt: now + settings.ceremonyTtlSeconds * 1000,
        consumedAt: null,
      }),
    ).pipe(Effect.orDie)
    return { stepUpId: id, action, options }
  })

/**
 * Finishes a step-up: the ceremony is used up whatever the outcome; it must be the same user
 * and client that started it, with one of the user's own passkeys. Answers the proof (once).
 */
export const verifyStepUp = (user: BearerUser, input: { readonly stepUpId: string; readonly assertion: Assertion }) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    // The ceremony is used up in a transaction of its own (another user's is refused and left alone):
    // a refused assertion below rolls its own transaction back, and must not give the challenge back with it.
    const c = yield* storage.transaction(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const ceremony = yield* Effect.flatMap(Ceremonies, (c) => c.consume(input.stepUpId, now))
        if (
          Option.isNone(ceremony) ||
          !ceremony.value.kind.startsWith("step-up:") ||
          ceremony.value.expiresAt <= now ||
          ceremony.value.userId !== user.userId ||
          ceremony.value.clientId !== user.clientId
        ) {
          return yield* new OperationExpired()
        }
        return ceremony.value
      }),
    )
    const action = yield* storage.transaction(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rp = yield* ceremonyRpFor(user.clientId)
        const passkey = yield* registeredPasskey(input.assertion.id)
        if (passkey.userId !== user.userId) return yield* new CredentialNotRegistered()
        const verified = yield* verifyAssertion(input.assertion, passkey, { challenge: c.challenge, origins: rp.origins, rpId: c.rpId })
        yield* Effect.flatMap(Passkeys, (p) => p.recordUse(passkey.id, verified.newCounter, now))
        return c.kind.slice("step-up:".length) as StepUpAction
      }),
    )
    const now = yield* Clock.currentTimeMillis
    const proof = `su_${yield* token(32)}`
    const proofHash = yield* hashSecret(proof)
    yield* Effect.flatMap(StepUpProofs, (p) =>
      p.insert({
        proofHash,
        userId: user.userId,
        clientId: user.clientId,
        action,
        createdAt: now,
        expiresAt: now + STEP_UP_PROOF_TTL_SECONDS * 1000,
      }),
    )
    yield* auditEvent(user, "step-up.approved", user.userId, { stepUpAction: action })
    return { stepUpToken: proof, action, expiresIn: STEP_UP_PROOF_TTL_SECONDS }
  })

/** Spends a step-up proof for `action`, or 403 `Fresh passkey approval required: <action>`. */
export const requireStepUp = (user: BearerUser, action: StepUpAction, proof: string | null | undefined) =>
  Effect.gen(function* () {
    if (proof === null || proof === undefined || proof.trim() === "") return yield* new StepUpRequired({ action })
    const now = yield* Clock.currentTimeMillis
    const proofHash = yield* hashSecret(proof.trim())
    const spent = yield* Effect.flatMap(StepUpProofs, (p) =>
      p.consume({
        proofHash,
        userId: user.userId,
        clientId: user.clientId,
        action,
        now,
      }),
    )
    if (!spent) return yield* new StepUpRequired({ action })
  })
