/** Sign-in with a passkey for an RP: the WebAuthn authentication ceremony, ending in an access token. */
import { Clock, Effect, Option } from "effect"
import { CredentialNotRegistered } from "./errors.ts"
import { InvalidRequest, OperationExpired } from "../kernel/errors.ts"
import { Ceremonies, Passkeys, Users } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { CONSOLE_CLIENT_ID, CONSOLE_SCOPE } from "../authorization/model.ts"
import { isEmail } from "./email-verification.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Random, uuid } from "../ports/random.ts"
import { issueAccessToken } from "./access-token.ts"
import { ceremonyRpFor } from "./ceremony-rp.ts"
import { registeredPasskey, userHandleOf } from "./enrolment.ts"
import { passkeyAmr } from "./hosted-session.ts"
import type { Assertion } from "./webauthn/schemas.ts"
import { verifyAssertion } from "./webauthn/verify-assertion.ts"
import { simpleWebAuthn } from "./webauthn/library.ts"

/** Scope of a user token from passkey sign-in at an RP: identity and signing (`basic`), never files or certificates. */
export const SIGN_IN_SCOPE: ReadonlyArray<string> = ["openid", "basic"]

/** Starts a sign-in for an approved RP; with an e-mail, only that user's passkeys are allowed. */
export const requestSignIn = (input: { readonly clientId: string; readonly email?: string }) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const rp = yield* ceremonyRpFor(input.clientId)
    let userId: string | null = null
    let allow: ReadonlyArray<string> = []
    if (input.email !== undefined) {
      const email = input.email.trim().toLowerCase()
      if (!isEmail(email)) return yield* new InvalidRequest({ detail: "email must be an e-mail address with a top-level domain" })
      // An unknown e-mail gets an ordinary-looking challenge, so sign-in does not tell who has an account.
      const user = yield* Effect.flatMap(Users, (u) => u.findByEmail(email))
      if (Option.isSome(user)) {
        userId = user.value.id
        allow = (yield* Effect.flatMap(Passkeys, (p) => p.listByUser(user.value.id))).map((p) => p.id)
      }
    }
    const challenge = yield* Effect.flatMap(Random, (r) => r.bytes(32))
    const { generateAuthenticationOptions } = yield* simpleWebAuthn
    const options = yield* Effect.promise(() =>
      generateAuthenticationOptions({
        rpID: rp.rpId,
        challenge: new Uint8Array(challenge),
        timeout: settings.ceremonyTtlSeconds * 1000,
        userVerification: "required",
        allowCredentials: allow.map((id) => ({ id })),
      }),
    )
    const now = yield* Clock.currentTimeMillis
    const id = yield* uuid
    yield* Effect.flatMap(Ceremonies, (c) =>
      c.insert({
        id,
        kind: "sign-in",
        challenge: options.challenge,
        userId,
        email: null,
        displayName: null,
        clientId: rp.clientId,
        rpId: rp.rpId,
        createdAt: now,
        expiresAt: now + settings.ceremonyTtlSeconds * 1000,
        consumedAt: null,
        emailVerificationId: null,
      }),
    ).pipe(Effect.orDie)
    return { signinId: id, options }
  })

/**
 * Finishes a sign-in. The ceremony is used up whatever the outcome, so a failed assertion
 * cannot be retried against the same challenge. Returns an access token for the RP.
 */
export const completeSignIn = (input: { readonly signinId: string; readonly assertion: Assertion }) =>
  Effect.map(completeSignInWithPasskey(input), (r) => r.answer)

/** {@link completeSignIn} with the passkey's `amr` too, for marking a hosted session signed in. */
export const completeSignInWithPasskey = (input: { readonly signinId: string; readonly assertion: Assertion }) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    // The ceremony is used up in a transaction of its own: a refused assertion below rolls its own
    // transaction back, and must not give the challenge back with it.
    const c = yield* storage.transaction(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const ceremony = yield* Effect.flatMap(Ceremonies, (c) => c.consume(input.signinId, now))
        if (Option.isNone(ceremony) || ceremony.value.kind !== "sign-in" || ceremony.value.expiresAt <= now) {
          return yield* new OperationExpired()
        }
        return ceremony.value
      }),
    )
    const { userId, clientId, backedUp } = yield* storage.transaction(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rp = yield* ceremonyRpFor(c.clientId)
        const passkey = yield* registeredPasskey(input.assertion.id)
        const handle = input.assertion.response.userHandle
        if ((c.userId !== null && passkey.userId !== c.userId) || (handle != null && handle !== userHandleOf(passkey.userId))) {
          return yield* new CredentialNotRegistered()
        }
        const verified = yield* verifyAssertion(input.assertion, passkey, { challenge: c.challenge, origins: rp.origins, rpId: c.rpId })
        yield* Effect.flatMap(Passkeys, (p) => p.recordUse(passkey.id, verified.newCounter, now))
        return { userId: passkey.userId, clientId: c.clientId ?? "", backedUp: passkey.backedUp }
      }),
    )
    // Only Signet's own console gets the narrow scopes without a consent page; an RP gets `openid basic`.
    const scope = clientId === CONSOLE_CLIENT_ID ? CONSOLE_SCOPE : SIGN_IN_SCOPE
    const issued = yield* issueAccessToken({ sub: userId, clientId, scope })
    const answer = { access_token: issued.token, token_type: "Bearer" as const, expires_in: issued.expiresIn, scope: scope.join(" "), sub: userId }
    return { answer, userId, amr: passkeyAmr(backedUp) }
  })
