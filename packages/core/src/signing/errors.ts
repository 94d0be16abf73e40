/** Errors of the hash-signing capability. */
import { Schema } from "effect"

/** 400: `/v2/sign/single` without `documentHash` or `credentialId`. */
export class DocumentHashAndCredentialRequired extends Schema.TaggedError<DocumentHashAndCredentialRequired>()("DocumentHashAndCredentialRequired", {}) {
  readonly status = 400 as const
  override get message() {
    return "documentHash and credentialId required"
  }
}

/** 404: the signed-in user holds no passkey with that id. */
export class NoSigningCredential extends Schema.TaggedError<NoSigningCredential>()("NoSigningCredential", {}) {
  readonly status = 404 as const
  override get message() {
    return "No signing credential found for user"
  }
}

/** 404: completion of an unknown or already completed signing request. */
export class SigningRequestNotFound extends Schema.TaggedError<SigningRequestNotFound>()("SigningRequestNotFound", {}) {
  readonly status = 404 as const
  override get message() {
    return "Signing request not found or already processed"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const signingErrors = [DocumentHashAndCredentialRequired, NoSigningCredential, SigningRequestNotFound] as const
/** An error of this module. */
export type SigningError = InstanceType<(typeof signingErrors)[number]>
