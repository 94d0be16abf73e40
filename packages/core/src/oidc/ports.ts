/** Ports of the OpenID provider capability: codes, refresh tokens, consents, revocations, signing keys, session sign-ins. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { AuthorizationCode, Consent, RefreshToken, SessionSignIn, SigningKey } from "./model.ts"

/** One-time authorization codes. */
export class AuthorizationCodes extends Context.Tag("@signet/core/AuthorizationCodes")<
  AuthorizationCodes,
  {
    readonly insert: (code: AuthorizationCode) => Effect.Effect<void, UniqueViolation>
    readonly findByHash: (codeHash: string) => Effect.Effect<Option.Option<AuthorizationCode>>
    /** Marks the code used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
    readonly consume: (codeHash: string, at: number) => Effect.Effect<Option.Option<AuthorizationCode>>
  }
>() {}

/** Refresh tokens, in families. */
export class RefreshTokens extends Context.Tag("@signet/core/RefreshTokens")<
  RefreshTokens,
  {
    readonly insert: (token: RefreshToken) => Effect.Effect<void, UniqueViolation>
    readonly findByHash: (tokenHash: string) => Effect.Effect<Option.Option<RefreshToken>>
    /** Marks the token used at `at` if it is neither used nor revoked; None otherwise. Atomic. */
    readonly consume: (tokenHash: string, at: number) => Effect.Effect<Option.Option<RefreshToken>>
    /** Marks every token of the family revoked (those not revoked yet) and returns the family's tokens. */
    readonly revokeFamily: (familyId: string, at: number) => Effect.Effect<ReadonlyArray<RefreshToken>>
  }
>() {}

/** Remembered consents, one per user and client. */
export class Consents extends Context.Tag("@signet/core/Consents")<
  Consents,
  {
    readonly find: (userId: string, clientId: string) => Effect.Effect<Option.Option<Consent>>
    /** Inserts or replaces the user's consent for the client. */
    readonly save: (consent: Consent) => Effect.Effect<void>
  }
>() {}

/** Revoked access tokens by `jti`, kept until the token would have expired anyway. */
export class TokenRevocations extends Context.Tag("@signet/core/TokenRevocations")<
  TokenRevocations,
  {
    /** Records the revocation (idempotent). */
    readonly revoke: (jti: string, expiresAt: number) => Effect.Effect<void>
    readonly isRevoked: (jti: string) => Effect.Effect<boolean>
    /** Forgets revocations of tokens expired before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
  }
>() {}

/** Token-signing key generations. */
export class SigningKeys extends Context.Tag("@signet/core/SigningKeys")<
  SigningKeys,
  {
    /** Inserts a generation; UniqueViolation when its number is taken (a concurrent rotation). */
    readonly insert: (key: SigningKey) => Effect.Effect<void, UniqueViolation>
    /** An environment's generations, newest first. */
    readonly list: (environment: string) => Effect.Effect<ReadonlyArray<SigningKey>>
    /**
     * What a bearer check reads, in one read: an environment's generations, newest first, and
     * whether token `jti` is revoked (`TokenRevocations`).
     */
    readonly listWithRevocation: (
      environment: string,
      jti: string,
    ) => Effect.Effect<{ readonly generations: ReadonlyArray<SigningKey>; readonly revoked: boolean }>
  }
>() {}

/** Sign-ins on hosted-page sessions (at most one user per session). */
export class SessionSignIns extends Context.Tag("@signet/core/SessionSignIns")<
  SessionSignIns,
  {
    /** Inserts or replaces the session's sign-in. */
    readonly save: (signIn: SessionSignIn) => Effect.Effect<void>
    readonly find: (sessionId: string) => Effect.Effect<Option.Option<SessionSignIn>>
    /** Ends the sign-in (logout); no-op when there is none. */
    readonly remove: (sessionId: string) => Effect.Effect<void>
  }
>() {}
