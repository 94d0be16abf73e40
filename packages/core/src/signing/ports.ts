/** Ports of the signing capability: signing requests, batches and their event log. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { Batch, BatchStatus, NewSigningEvent, SigningEvent, SigningRequest, SigningRequestStatus } from "./model.ts"

/** Hash signing requests. */
export class SigningRequests extends Context.Tag("@signet/core/SigningRequests")<
  SigningRequests,
  {
    /**
     * Stores a new request. Its id is random: a taken one is a defect that fails the unit of work
     * (a store may send the insert with the unit's next statement or its COMMIT).
     */
    readonly insert: (request: SigningRequest) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<SigningRequest>>
    /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
    readonly update: (next: SigningRequest, expected: SigningRequestStatus) => Effect.Effect<boolean>
  }
>() {}

/** Batches. */
export class Batches extends Context.Tag("@signet/core/Batches")<
  Batches,
  {
    readonly insert: (batch: Batch) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Batch>>
    /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
    readonly update: (next: Batch, expected: BatchStatus) => Effect.Effect<boolean>
  }
>() {}

/** The append-only log of signing events. */
export class SigningEvents extends Context.Tag("@signet/core/SigningEvents")<
  SigningEvents,
  {
    /** Appends an event; returns it with its position. */
    readonly append: (event: NewSigningEvent) => Effect.Effect<SigningEvent>
    /** Appends an event without answering its position: a store may send it with the unit of work's next statement. */
    readonly record: (event: NewSigningEvent) => Effect.Effect<void>
    /** The position of a user's newest event (0 when none). */
    readonly lastSeqForUser: (userId: string) => Effect.Effect<number>
    /** A user's events after position `afterSeq`, oldest first, at most `limit`. */
    readonly listForUser: (userId: string, afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<SigningEvent>>
    /** The events of one request or batch, oldest first. */
    readonly listForSubject: (subjectId: string) => Effect.Effect<ReadonlyArray<SigningEvent>>
  }
>() {}
