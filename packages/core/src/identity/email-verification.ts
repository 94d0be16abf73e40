/**
 * E-mail ownership: a one-time code sent through the `Mailer` port proves that the person
 * reads the mailbox. Only a proven address is written into a certificate or lets a passkey
 * be added to an account (docs/identity.md, "Proving an e-mail address").
 */
import { Clock, Effect, Option } from "effect"
import { EmailVerificationFailed, EmailVerificationLimit } from "./errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { unsafeText } from "../kernel/identifier-text.ts"
import { EngineConfig, issuerOf } from "../ports/engine-config.ts"
import { Mailer } from "./mailer.ts"
import { EmailVerifications, Users } from "./ports.ts"
import { Random, uuid } from "../ports/random.ts"
import { hashSecret, secretMatches } from "../kernel/secrets.ts"

/** Lifetime of a verification code. */
export const EMAIL_CODE_TTL_SECONDS = 600
/** Wrong codes a verification tolerates; the next one ends it. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5
/** Verification e-mails one address may receive per hour (the mailbox owner is not flooded, codes are not farmed). */
export const EMAIL_CODES_PER_HOUR = 5
/** Digits of a code. */
export const EMAIL_CODE_DIGITS = 8

/** A syntactically plausible e-mail with a top-level domain. */
export const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@.]{2,}$/.test(value)

/**
 * An e-mail address as the engine keeps it (NFC, trimmed, lower-case), or 400. Control,
 * bidirectional, invisible and compatibility characters (fullwidth `＠`) are refused, so no
 * stored address can pass for another one.
 */
export const normaliseEmail = (raw: string) =>
  Effect.gen(function* () {
    if (unsafeText(raw) !== undefined) {
      return yield* new InvalidRequest({ detail: "email must not contain control, bidirectional, invisible or compatibility (e.g. fullwidth) characters" })
    }
    const email = raw.normalize("NFC").trim().toLowerCase()
    if (!isEmail(email) || email.length > 254) return yield* new InvalidRequest({ detail: "email must be an e-mail address with a top-level domain" })
    return email
  })

const codeHashOf = (id: string, code: string) => hashSecret(`${id}:${code}`)

/** A uniformly drawn decimal code (rejection sampling: no modulo bias). */
const newCode = Effect.gen(function* () {
  const random = yield* Random
  const limit = 10 ** EMAIL_CODE_DIGITS
  const ceiling = Math.floor(0x1_0000_0000 / limit) * limit
  for (;;) {
    const b = yield* random.bytes(4)
    const n = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
    if (n < ceiling) return String(n % limit).padStart(EMAIL_CODE_DIGITS, "0")
  }
})

/**
 * Sends a one-time code to `email` and answers the verification id (the code goes only to the
 * mailbox). The same answer whether or not an account has the address, so it reveals none.
 */
export const startEmailVerification = (rawEmail: string) =>
  Effect.gen(function* () {
    const email = yield* normaliseEmail(rawEmail)
    const repo = yield* EmailVerifications
    const now = yield* Clock.currentTimeMillis
    if ((yield* repo.countSince(email, now - 3_600_000)) >= EMAIL_CODES_PER_HOUR) return yield* new EmailVerificationLimit({ perHour: EMAIL_CODES_PER_HOUR })
    const id = yield* uuid
    const code = yield* newCode
    const expiresAt = now + EMAIL_CODE_TTL_SECONDS * 1000
    yield* repo
      .insert({ id, email, codeHash: yield* codeHashOf(id, code), attempts: 0, createdAt: now, expiresAt, verifiedAt: null, consumedAt: null })
      .pipe(Effect.orDie)
    const settings = yield* EngineConfig
    const origin = new URL(issuerOf(settings)).host
    yield* Effect.flatMap(Mailer, (m) =>
      m.send({
        to: email,
        subject: `Your Signet code: ${code}`,
        text: [
          `Your Signet verification code is ${code}`,
          "",
          `Enter it on the page that asked for it (${origin}). It works once and expires in ${EMAIL_CODE_TTL_SECONDS / 60} minutes.`,
          "Nobody from Signet or any service will ask you for this code: do not give it to anyone.",
          "If you did not ask for it, ignore this message; nothing changes without the code.",
        ].join("\n"),
      }),
    )
    return { verificationId: id, expiresAt: Math.floor(expiresAt / 1000) }
  })

/**
 * Checks a code. Right: the verification is proven and may be used once (an enrolment), and an
 * account signed in with that very address is marked verified. Wrong: one attempt is spent; at
 * the fifth the verification is dead. Unknown, expired, used or dead all answer alike.
 */
export const confirmEmailVerification = (input: { readonly verificationId: string; readonly code: string; readonly signedInUserId?: string }) =>
  Effect.gen(function* () {
    const repo = yield* EmailVerifications
    const now = yield* Clock.currentTimeMillis
    const found = yield* repo.findById(input.verificationId)
    if (Option.isNone(found)) return yield* new EmailVerificationFailed()
    const v = found.value
    if (v.expiresAt <= now || v.consumedAt !== null || v.attempts >= EMAIL_CODE_MAX_ATTEMPTS) return yield* new EmailVerificationFailed()
    const code = input.code.replace(/[\s-]/g, "")
    if (!/^\d+$/.test(code) || !(yield* secretMatches(`${v.id}:${code}`, v.codeHash))) {
      yield* repo.recordFailedAttempt(v.id, EMAIL_CODE_MAX_ATTEMPTS)
      return yield* new EmailVerificationFailed()
    }
    if (v.verifiedAt === null && !(yield* repo.markVerified(v.id, now, EMAIL_CODE_MAX_ATTEMPTS))) return yield* new EmailVerificationFailed()
    if (input.signedInUserId !== undefined) {
      const users = yield* Users
      const user = yield* users.findById(input.signedInUserId)
      if (Option.isSome(user) && user.value.email === v.email && user.value.emailVerifiedAt === null) yield* users.markEmailVerified(user.value.id, now)
    }
    return { verificationId: v.id, email: v.email, verified: true as const }
  })

/** A verification that proves `email` now (verified, unexpired, unused), or None. */
export const provenEmail = (verificationId: string, email: string) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const found = yield* Effect.flatMap(EmailVerifications, (r) => r.findById(verificationId))
    return Option.filter(found, (v) => v.email === email && v.verifiedAt !== null && v.consumedAt === null && v.expiresAt > now)
  })
