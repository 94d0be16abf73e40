/** Passkey enrolment: the WebAuthn registration ceremony, for a new user or one already signed in. */
import { generateRegistrationOptions } from "@simplewebauthn/server"
import { Clock, Effect, Option } from "effect"
import { AlreadyExists, CredentialNotRegistered, EnrolmentRequiresSignIn, InvalidRequest, OperationExpired } from "../errors/catalogue.ts"
import { toBase64Url, utf8 } from "../kernel/encoding.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Random, uuid } from "../ports/random.ts"
import { Ceremonies, Passkeys, Storage, Users } from "../ports/storage.ts"
import { ceremonyRpFor } from "./ceremony-rp.ts"
import type { User } from "./model.ts"
import type { RegistrationCredential } from "./webauthn/schemas.ts"
import { SUPPORTED_ALGORITHMS, verifyRegistration } from "./webauthn/verify-registration.ts"

/** A syntactically plausible e-mail with a top-level domain. */
export const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@.]{2,}$/.test(value)

/** The WebAuthn user handle of a user: the UTF-8 bytes of their id, base64url. */
export const userHandleOf = (userId: string): string => toBase64Url(utf8(userId))

/** What starting an enrolment takes. */
export interface EnrolmentRequest {
  readonly email: string
  readonly displayName?: string
  readonly clientId?: string
  /** the bearer user, when the caller is signed in */
  readonly signedInUserId?: string
}

/**
 * Starts an enrolment and returns creation options. A new e-mail enrols a new account; an
 * account that already has a passkey can add another only with its own bearer token, so
 * knowing an e-mail is never enough to attach a passkey to someone's account.
 */
export const requestEnrolment = (input: EnrolmentRequest) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const users = yield* Users
    const passkeys = yield* Passkeys
    const ceremonies = yield* Ceremonies
    const email = input.email.trim().toLowerCase()
    if (!isEmail(email)) return yield* new InvalidRequest({ detail: "email must be an e-mail address with a top-level domain" })
    const rp = yield* ceremonyRpFor(input.clientId ?? null)
    const existing = yield* users.findByEmail(email)
    const owned = Option.isSome(existing) ? yield* passkeys.listByUser(existing.value.id) : []
    if (Option.isSome(existing) && owned.length > 0 && input.signedInUserId !== existing.value.id) {
      return yield* new EnrolmentRequiresSignIn()
    }
    const userId = Option.isSome(existing) ? existing.value.id : yield* uuid
    const displayName = Option.isSome(existing) ? existing.value.displayName : (input.displayName?.trim() || email)
    const challenge = yield* Effect.flatMap(Random, (r) => r.bytes(32))
    const now = yield* Clock.currentTimeMillis
    const id = yield* uuid
    const options = yield* Effect.promise(() => generateRegistrationOptions({
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
    }))
    yield* ceremonies.insert({
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
    }).pipe(Effect.orDie)
    return { enrolmentId: id, options }
  })

/** Finishes an enrolment: verifies the attestation and stores the passkey (and the new user) in one transaction. */
export const completeEnrolment = (input: { readonly enrolmentId: string; readonly credential: RegistrationCredential }) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(Effect.gen(function* () {
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
      const userId = c.userId ?? (yield* uuid)
      let user: User | undefined = Option.getOrUndefined(yield* users.findById(userId))
      if (user === undefined) {
        user = { id: userId, email: c.email ?? "", displayName: c.displayName ?? c.email ?? "", createdAt: now }
        // Two enrolments raced for one new e-mail: the first one wins.
        yield* users.insert(user).pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: `account for ${c.email}` })))
      }
      yield* passkeys.insert({
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
      }).pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: "passkey" })))
      return { userId, email: user.email, credentialId: verified.credentialId }
    }))
  })

/** A user's passkey by id, or `Credential not registered`. */
export const registeredPasskey = (credentialId: string) =>
  Effect.flatMap(Passkeys, (p) => p.findById(credentialId)).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new CredentialNotRegistered()), onSome: Effect.succeed })))
