/** Ports of the documents capability: encrypted files and signature images (docs/documents.md). */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { EncryptedFile, SignatureImage } from "./model.ts"

/** Encrypted files and who they are addressed to. */
export class EncryptedFiles extends Context.Tag("@signet/core/EncryptedFiles")<
  EncryptedFiles,
  {
    readonly insert: (file: EncryptedFile) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<EncryptedFile>>
    /** Files the user owns or is a recipient of, newest first, at most `limit`. */
    readonly listForUser: (userId: string, limit: number) => Effect.Effect<ReadonlyArray<EncryptedFile>>
    /** Deletes a file (and its recipients). */
    readonly remove: (id: string) => Effect.Effect<void>
  }
>() {}

/** Signers' own signature images, one per user. */
export class SignatureImages extends Context.Tag("@signet/core/SignatureImages")<
  SignatureImages,
  {
    /** Stores the user's image, replacing an earlier one. */
    readonly save: (image: SignatureImage) => Effect.Effect<void>
    readonly findByUser: (userId: string) => Effect.Effect<Option.Option<SignatureImage>>
    /** Deletes the user's image; false when there was none. */
    readonly remove: (userId: string) => Effect.Effect<boolean>
  }
>() {}
