/** Passkey enrolment: the WebAuthn registration ceremony, for a new user or one already signed in. */
import { Clock, Effect, Option } from "effect"
import { AlreadyExists, InvalidRequest, OperationExpired } from "../kernel/errors.ts"
import { CredentialNotRegistered, EmailVerificationRequired } from "./errors.ts"
import { Ceremonies, EmailVerifications, Passkeys, Users } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { normaliseEmail, provenEmail } from "./email-verification.ts"
import type { User } from "./model.ts"
import { unsafeText } from "../kernel/identifier-text.ts"
import { toBase64Url, utf8 } from "../kernel/encoding.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Random, uuid } from "../ports/random.ts"
import { ceremonyRpFor } from "./ceremony-rp.ts"
import type { RegistrationCredential } from "./webauthn/schemas.ts"
import { SUPPORTED_ALGORITHMS, verifyRegistration } from "./webauthn/verify-registration.ts"
import { simpleWebAuthn } from "./webauthn/library.ts"

/** The WebAuthn user handle of a user: the UTF-8 bytes of their id, base64url. */
export const userHandleOf = (userId: string): string => toBase64Url(utf8(userId))

/** What starting an enrolment takes. */
export interface EnrolmentRequest {
  readonly email: string
  readonly displayName?: string
  readonly clientId?: string
  /** the user the caller is signed in as: the bearer token's, or the hosted session's */
  readonly signedInUserId?: string
  /** a verification that proved this e-mail (`POST /enrolment/email/verify`) */
  readonly emailVerificationId?: string
}

/**
 * Starts an enrolment and returns creation options. A passkey is added only with the proof of
 * the account it lands on, whether or not that account has passkeys yet: the caller is signed
 * in as that account (bearer token or hosted session), or has just proven the e-mail address
 * with a code sent to it. A new account needs the proven e-mail too, so nobody can open an
 * account in someone else's name and wait for its owner (pre-account hijack). Without a
 * proof every address gets the same 403, which tells nothing about who has an account.
 */
export const requestEnrolment = (input: EnrolmentRequest) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const users = yield* Users
    const passkeys = yield* Passkeys
    const ceremonies = yield* Ceremonies
    const email = yield* normaliseEmail(input.email)
    const unsafeName = input.displayName === undefined ? undefined : unsafeText(input.displayName)
    if (unsafeName === "control" || unsafeName === "bidi-or-invisible") {
      return yield* new InvalidRequest({ detail: "displayName must not contain control, bidirectional or invisible characters" })
    }
    const rp = yield* ceremonyRpFor(input.clientId ?? null)
    const existing = yield* users.findByEmail(email)
    const ownAccount = Option.isSome(existing) && input.signedInUserId !== undefined && input.signedInUserId === existing.value.id
    const proof = ownAccount || input.emailVerificationId === undefined ? Option.none() : yield* provenEmail(input.emailVerificationId, email)
    if (!ownAccount && Option.isNone(proof)) return yield* new EmailVerificationRequired()
    const owned = Option.isSome(existing) ? yield* passkeys.listByUser(existing.value.id) : []
    const userId = Option.isSome(existing) ? existing.value.id : yield* uuid
    const displayName = Option.isSome(existing) ? existing.value.displayName : input.displayName?.normalize("NFC").trim().slice(0, 200) || email
    const challenge = yield* Effect.flatMap(Random, (r) => r.bytes(32))
    const now = yield* Clock.currentTimeMillis
    const id = yield* uuid
    const { generateRegistrationOptions } = yield* simpleWebAuthn
    const options = yield* Effect.promise(() =>
      generateRegistrationOptions({
        rpName: rp.rpName,
        rpID: rp.rpId,
        userName: email,
        userDisplayName: displayName,
        userID: utf8(userId) as Uint8Array<ArrayBuffer>,
        challenge: new Uint8Array(challenge),
        timeout: settings.ceremonyTtlSeconds * 1000,
        attestationType: "none",
        excludeCredentials: owned.map((p) => ({ id: p.id })),
        authenticatorSelection: { residentKey: "required", userVerification: "required" },
        supportedAlgorithmIDs: [...SUPPORTED_ALGORITHMS],
      }),
    )
    yield* ceremonies
      .insert({
        id,
        kind: "enrolment",
        challenge: options.challenge,
        userId,
        email,
        displayName,
        clientId: rp.clientId,
        rpId: rp.rpId,
        createdAt: now,
        expiresAt: now + settings.ceremonyTtlSeconds * 1000,
        consumedAt: null,
        emailVerificationId: Option.match(proof, { onNone: () => null, onSome: (v) => v.id }),
      })
      .pipe(Effect.orDie)
    return { enrolmentId: id, options }
  })

/** Finishes an enrolment: verifies the attestation and stores the passkey (and the new user) in one transaction. */
export const completeEnrolment = (input: { readonly enrolmentId: string; readonly credential: RegistrationCredential }) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(
      Effect.gen(function* () {
        const ceremonies = yield* Ceremonies
        const users = yield* Users
        const passkeys = yield* Passkeys
        const now = yield* Clock.currentTimeMillis
        const ceremony = yield* ceremonies.consume(input.enrolmentId, now)
        if (Option.isNone(ceremony) || ceremony.value.kind !== "enrolment" || ceremony.value.expiresAt <= now) {
          return yield* new OperationExpired()
        }
        const c = ceremony.value
        const rp = yield* ceremonyRpFor(c.clientId)
        const verified = yield* verifyRegistration(input.credential, { challenge: c.challenge, origins: rp.origins, rpId: c.rpId })
        // The e-mail proof is used up with the passkey it let in: one proof, one passkey.
        let emailVerifiedAt: number | null = null
        if (c.emailVerificationId !== null) {
          const used = yield* Effect.flatMap(EmailVerifications, (r) => r.consume(c.emailVerificationId!, now))
          if (Option.isNone(used) || used.value.email !== c.email) return yield* new OperationExpired()
          emailVerifiedAt = now
        }
        const userId = c.userId ?? (yield* uuid)
        let user: User | undefined = Option.getOrUndefined(yield* users.findById(userId))
        if (user === undefined) {
          user = { id: userId, email: c.email ?? "", displayName: c.displayName ?? c.email ?? "", createdAt: now, emailVerifiedAt }
          // Two enrolments raced for one new e-mail: the first one wins.
          yield* users.insert(user).pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: `account for ${c.email}` })))
        } else if (emailVerifiedAt !== null && user.emailVerifiedAt === null) {
          yield* users.markEmailVerified(userId, emailVerifiedAt)
        }
        yield* passkeys
          .insert({
            id: verified.credentialId,
            userId,
            publicKey: verified.publicKey,
            algorithm: verified.algorithm,
            counter: verified.counter,
            rpId: c.rpId,
            transports: verified.transports,
            backedUp: verified.backedUp,
            createdAt: now,
            lastUsedAt: null,
          })
          .pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: "passkey" })))
        return { userId, email: user.email, credentialId: verified.credentialId }
      }),
    )
  })

/** A user's passkey by id, or `Credential not registered`. */
export const registeredPasskey = (credentialId: string) =>
  Effect.flatMap(Passkeys, (p) => p.findById(credentialId)).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new CredentialNotRegistered()), onSome: Effect.succeed })),
  )
