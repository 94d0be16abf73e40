/** Identity aggregates: users, their passkeys, WebAuthn ceremonies and hosted-page sessions. */
import { Schema } from "effect"

/** A person with an account at the engine. */
export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  displayName: Schema.String,
  createdAt: Schema.Number,
  /** when the person proved they read this e-mail (a code sent through the Mailer); null: claimed, never written into a certificate */
  emailVerifiedAt: Schema.NullOr(Schema.Number),
})
/** A person with an account at the engine. */
export type User = typeof User.Type

/** A registered passkey (WebAuthn credential). */
export const Passkey = Schema.Struct({
  /** base64url credential id */
  id: Schema.String,
  userId: Schema.String,
  /** base64url COSE public key */
  publicKey: Schema.String,
  /** COSE algorithm: -7 (ES256) or -257 (RS256) */
  algorithm: Schema.Int,
  counter: Schema.Int,
  rpId: Schema.String,
  transports: Schema.Array(Schema.String),
  backedUp: Schema.Boolean,
  createdAt: Schema.Number,
  lastUsedAt: Schema.NullOr(Schema.Number),
})
/** A registered passkey (WebAuthn credential). */
export type Passkey = typeof Passkey.Type

/** Which WebAuthn ceremony a stored challenge belongs to. */
export const CeremonyKind = Schema.Literal("enrolment", "sign-in", "step-up:decrypt", "step-up:revoke-certificate", "step-up:rotate-secrets")

/** A WebAuthn ceremony in flight: the challenge it issued and what it is for. Used once. */
export const Ceremony = Schema.Struct({
  id: Schema.String,
  kind: CeremonyKind,
  /** base64url challenge sent to the authenticator */
  challenge: Schema.String,
  /** the user it is for; for a new user's enrolment, the id the user will get */
  userId: Schema.NullOr(Schema.String),
  /** enrolment of a new user: the e-mail and display name to create */
  email: Schema.NullOr(Schema.String),
  displayName: Schema.NullOr(Schema.String),
  /** RP client id the ceremony runs for (its RP id and origins); null for the engine itself */
  clientId: Schema.NullOr(Schema.String),
  rpId: Schema.String,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  consumedAt: Schema.NullOr(Schema.Number),
  /** enrolment proven by an e-mail verification: used up when the passkey is stored */
  emailVerificationId: Schema.NullOr(Schema.String),
})
/** A WebAuthn ceremony in flight: the challenge it issued and what it is for. Used once. */
export type Ceremony = typeof Ceremony.Type

/** A hosted-page session: the hash of the cookie's id and the hash of the CSRF token the page got with it. */
export const HostedSession = Schema.Struct({
  /** SHA-256 hex of the cookie value: a leaked table signs nobody in */
  id: Schema.String,
  csrfTokenHash: Schema.String,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
})
/** A hosted-page session: the cookie's id and the hash of the CSRF token the page got with it. */
export type HostedSession = typeof HostedSession.Type

/** A proof of e-mail ownership in flight: the code is stored only as a hash, salted with the verification id. */
export const EmailVerification = Schema.Struct({
  id: Schema.String,
  /** the address, normalised (NFC, lower-case) */
  email: Schema.String,
  /** SHA-256 hex of `<id>:<code>` */
  codeHash: Schema.String,
  /** wrong codes so far */
  attempts: Schema.Int,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  /** when the right code was given; from then on it may prove the address once */
  verifiedAt: Schema.NullOr(Schema.Number),
  /** when an enrolment (or the account) used the proof */
  consumedAt: Schema.NullOr(Schema.Number),
})
/** A proof of e-mail ownership in flight. */
export type EmailVerification = typeof EmailVerification.Type
