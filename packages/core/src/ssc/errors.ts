/** Errors of the signing-token (SSC) capability. */
import { Schema } from "effect"

/** 404: LOA-4 token for a signer e-mail with no account. */
export class UserNotFoundForEmail extends Schema.TaggedError<UserNotFoundForEmail>()("UserNotFoundForEmail", { email: Schema.String }) {
  readonly status = 404 as const
  override get message() {
    return `User not found for email: ${this.email}`
  }
}

/** 404: LOA-4 token for a signer with no passkey. */
export class NoCredentialForUser extends Schema.TaggedError<NoCredentialForUser>()("NoCredentialForUser", {}) {
  readonly status = 404 as const
  override get message() {
    return "No credential found for user"
  }
}

/** 403: `/ssc/challenge` or `/ssc/finalize` for another document than the token or operation was made for. */
export class DocumentHashMismatch extends Schema.TaggedError<DocumentHashMismatch>()("DocumentHashMismatch", {}) {
  readonly status = 403 as const
  override get message() {
    return "documentHash does not match the signing token"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const sscErrors = [UserNotFoundForEmail, NoCredentialForUser, DocumentHashMismatch] as const
/** An error of this module. */
export type SscError = InstanceType<(typeof sscErrors)[number]>
