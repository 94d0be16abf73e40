/** Ports of the relying-party capability: its repositories and the quota counters. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { NewRelyingParty, RelyingParty, NewOrganisationCheck, OrganisationCheck } from "./model.ts"

/** Relying parties. */
export class RelyingParties extends Context.Tag("@signet/core/RelyingParties")<
  RelyingParties,
  {
    readonly insert: (rp: NewRelyingParty) => Effect.Effect<RelyingParty, UniqueViolation>
    readonly update: (rp: RelyingParty) => Effect.Effect<void>
    readonly findById: (id: number) => Effect.Effect<Option.Option<RelyingParty>>
    readonly findByClientId: (clientId: string) => Effect.Effect<Option.Option<RelyingParty>>
    /** All RPs, oldest first. */
    readonly list: () => Effect.Effect<ReadonlyArray<RelyingParty>>
  }
>() {}

/** The organisation-KYC record of RPs: contact submissions and administrators' checks, append-only. */
export class RpOrganisationChecks extends Context.Tag("@signet/core/RpOrganisationChecks")<
  RpOrganisationChecks,
  {
    readonly insert: (check: NewOrganisationCheck) => Effect.Effect<OrganisationCheck>
    /** An RP's records, oldest first. */
    readonly listByClientId: (clientId: string) => Effect.Effect<ReadonlyArray<OrganisationCheck>>
  }
>() {}

/** One counter to consume: `amount` added to `key` if its total stays within `limit`. */
export interface QuotaConsumption {
  readonly key: string
  readonly amount: number
  readonly limit: number
  /** when the counter's window ends (ms): after it the counter is purged */
  readonly expiresAt: number
}

/** Counters for quotas: exact under concurrency on every adapter. */
export class QuotaCounters extends Context.Tag("@signet/core/QuotaCounters")<
  QuotaCounters,
  {
    /**
     * Adds `amount` to counter `key` if the total stays within `limit`, atomically; the new
     * total, or None (and no change) when it would exceed. `expiresAt` (ms) lets old windows be purged.
     */
    readonly consume: (key: string, amount: number, limit: number, expiresAt: number) => Effect.Effect<Option.Option<number>>
    /**
     * `consume` for each of several counters (distinct keys) in one step: each is judged on its own
     * as `consume` judges it; the answers in the order asked. One statement for two counters on SQL.
     */
    readonly consumeEach: (requests: ReadonlyArray<QuotaConsumption>) => Effect.Effect<ReadonlyArray<Option.Option<number>>>
    /** The current total of `key` (0 when absent). */
    readonly peek: (key: string) => Effect.Effect<number>
    /** Deletes counters whose window ended before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
    /** Every counter whose key starts with `prefix`, by key (usage reports read the windows the limits consume). */
    readonly list: (prefix: string) => Effect.Effect<ReadonlyArray<{ readonly key: string; readonly count: number; readonly expiresAt: number }>>
  }
>() {}
