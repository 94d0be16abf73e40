/** Passkey approval of a signing operation: the assertion must be the signer's own registered passkey over the linked challenge. */
import { Clock, Effect } from "effect"
import { CredentialNotRegistered } from "../identity/errors.ts"
import { registeredPasskey } from "../identity/enrolment.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { verifyAssertion } from "../identity/webauthn/verify-assertion.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Passkeys } from "../identity/ports.ts"
import type { RelyingParty } from "../rp/model.ts"

/** Verifies the approval and records the passkey's new counter. */
export const approveWithPasskey = (input: {
  readonly assertion: Assertion
  readonly credentialId: string
  readonly userId: string
  readonly challenge: string
  readonly rp: RelyingParty
}) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const passkey = yield* registeredPasskey(input.assertion.id)
    // Only the passkey named at creation may approve, and only its owner's.
    if (passkey.id !== input.credentialId || passkey.userId !== input.userId) return yield* new CredentialNotRegistered()
    const origins = [settings.publicOrigin, ...input.rp.signingOrigins.filter((o) => o !== settings.publicOrigin)]
    const verified = yield* verifyAssertion(input.assertion, passkey, { challenge: input.challenge, origins, rpId: input.rp.webauthnRpId })
    yield* Effect.flatMap(Passkeys, (p) => Effect.flatMap(Clock.currentTimeMillis, (now) => p.recordUse(passkey.id, verified.newCounter, now)))
    return { passkey, userVerified: verified.userVerified }
  })
