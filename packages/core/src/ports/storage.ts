/**
 * The storage kernel every capability shares: the unit of work and the unique-key failure.
 * Each capability declares its own repositories in its `ports.ts`. Infrastructure failures
 * are defects (the HTTP edge answers 500 and logs them); domain outcomes are values.
 */
import { Context, type Effect, Schema } from "effect"

/** A unique key (e-mail, client id, credential id, key id) is already taken. */
export class UniqueViolation extends Schema.TaggedError<UniqueViolation>()("UniqueViolation", { what: Schema.String }) {}

/** The unit of work: everything inside `transaction` commits together or not at all. */
export class Storage extends Context.Tag("@signet/core/Storage")<
  Storage,
  {
    /** Runs `effect` in one database transaction; a failure or defect rolls it back. Nested calls join the outer one. */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * True when independent reads issued at once cost less than one after another (a database
     * server, where reads made together go in one exchange): callers may then make them concurrently.
     */
    readonly readsTogether?: boolean
  }
>() {}
