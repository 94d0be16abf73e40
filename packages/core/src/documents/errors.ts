/** Errors of the documents capability: encrypted files, decryption and signature images (docs/documents.md). */
import { Schema } from "effect"

/** 403: an EnvelopedData given to `/decrypt/asymmetric` names none of the user's encryption certificates. */
export class NotAnEnvelopeRecipient extends Schema.TaggedError<NotAnEnvelopeRecipient>()("NotAnEnvelopeRecipient", {}) {
  readonly status = 403 as const
  override get message() {
    return "The EnvelopedData is not addressed to your encryption certificate"
  }
}

/** 409: the image of a signature exists only once the signing request is completed. */
export class SigningRequestNotCompleted extends Schema.TaggedError<SigningRequestNotCompleted>()("SigningRequestNotCompleted", {}) {
  readonly status = 409 as const
  override get message() {
    return "Signing request is not completed"
  }
}

/** 422: a signature image (set for the user, or given for a visible PDF signature) is not a PNG the engine can read. */
export class SignatureImageInvalid extends Schema.TaggedError<SignatureImageInvalid>()("SignatureImageInvalid", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() {
    return `Signature image is not a usable PNG: ${this.detail}`
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const documentsErrors = [NotAnEnvelopeRecipient, SigningRequestNotCompleted, SignatureImageInvalid] as const
/** An error of this module. */
export type DocumentsError = InstanceType<(typeof documentsErrors)[number]>
