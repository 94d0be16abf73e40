/** Ports of the identity capability: users, passkeys, ceremonies, hosted sessions, e-mail verifications. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { Ceremony, EmailVerification, HostedSession, Passkey, User } from "./model.ts"

/** Users. */
export class Users extends Context.Tag("@signet/core/Users")<
  Users,
  {
    readonly insert: (user: User) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<User>>
    /** Looks up by e-mail, case-insensitively (e-mails are stored lower-case). */
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
    /** Records that the user proved their e-mail at `at`. */
    readonly markEmailVerified: (id: string, at: number) => Effect.Effect<void>
  }
>() {}

/** Registered passkeys. */
export class Passkeys extends Context.Tag("@signet/core/Passkeys")<
  Passkeys,
  {
    readonly insert: (passkey: Passkey) => Effect.Effect<void, UniqueViolation>
    readonly findById: (credentialId: string) => Effect.Effect<Option.Option<Passkey>>
    /** A user's passkeys, oldest first. */
    readonly listByUser: (userId: string) => Effect.Effect<ReadonlyArray<Passkey>>
    /** Records a successful assertion: the new counter and when. */
    readonly recordUse: (credentialId: string, counter: number, at: number) => Effect.Effect<void>
  }
>() {}

/** WebAuthn ceremonies in flight. */
export class Ceremonies extends Context.Tag("@signet/core/Ceremonies")<
  Ceremonies,
  {
    readonly insert: (ceremony: Ceremony) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Ceremony>>
    /** Marks the ceremony used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
    readonly consume: (id: string, at: number) => Effect.Effect<Option.Option<Ceremony>>
  }
>() {}

/** Hosted-page sessions. */
export class HostedSessions extends Context.Tag("@signet/core/HostedSessions")<
  HostedSessions,
  {
    readonly insert: (session: HostedSession) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<HostedSession>>
  }
>() {}

/** E-mail verifications. */
export class EmailVerifications extends Context.Tag("@signet/core/EmailVerifications")<
  EmailVerifications,
  {
    readonly insert: (verification: EmailVerification) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<EmailVerification>>
    /** Counts one wrong code if fewer than `max` were counted; None when the allowance was used up (or the id is unknown). Atomic. */
    readonly recordFailedAttempt: (id: string, max: number) => Effect.Effect<Option.Option<number>>
    /** Marks it verified at `at` if it is unverified, unconsumed and below `max` attempts; false otherwise. Atomic. */
    readonly markVerified: (id: string, at: number, max: number) => Effect.Effect<boolean>
    /** Marks a verified, unconsumed verification used at `at`; None when it was not (or is unknown). Atomic. */
    readonly consume: (id: string, at: number) => Effect.Effect<Option.Option<EmailVerification>>
    /** How many verifications were started for `email` at or after `since`. */
    readonly countSince: (email: string, since: number) => Effect.Effect<number>
    /** Deletes verifications that expired before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
  }
>() {}
