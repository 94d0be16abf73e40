/** Ports of the signing-token (SSC) capability. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { SscOperation } from "./model.ts"

/** Operations of the signing-token flow. */
export class SscOperations extends Context.Tag("@signet/core/SscOperations")<
  SscOperations,
  {
    readonly insert: (operation: SscOperation) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<SscOperation>>
    /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
    readonly update: (next: SscOperation, expected: SscOperation["status"]) => Effect.Effect<boolean>
    /** The client ids of the RPs whose operations this certificate signed (finalized ones). */
    readonly clientIdsSignedWith: (certificateSerial: string) => Effect.Effect<ReadonlyArray<string>>
  }
>() {}
