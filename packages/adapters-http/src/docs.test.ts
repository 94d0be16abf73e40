/** The documentation names every catalogued message exactly as the engine answers it. */
import * as Catalogue from "@signet/core"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const errorsDoc = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8")

// One instance of each catalogued error, with placeholder data where the message has some.
const samples: ReadonlyArray<Catalogue.CataloguedError> = [
  new Catalogue.MissingAuthorizationHeader(),
  new Catalogue.InvalidOrExpiredToken(),
  new Catalogue.TokenMissingSubject(),
  new Catalogue.CsrfValidationFailed(),
  new Catalogue.InvalidClient(),
  new Catalogue.UnknownRpClientId(),
  new Catalogue.InvalidClientCredentials(),
  new Catalogue.Loa4RequiresKycVerifiedRp(),
  new Catalogue.NoCredentialForUser(),
  new Catalogue.PasskeySignatureInvalid(),
  new Catalogue.ChallengeMismatch(),
  new Catalogue.OriginMismatch(),
  new Catalogue.UserVerificationRequired(),
  new Catalogue.RpIdMismatch(),
  new Catalogue.CredentialNotRegistered(),
  new Catalogue.SignatureCounterRegressed(),
  new Catalogue.OperationExpired(),
  new Catalogue.DocumentHashAndCredentialRequired(),
  new Catalogue.NoSigningCredential(),
  new Catalogue.SigningRequestNotFound(),
  new Catalogue.RateLimitExceeded(),
  new Catalogue.KycVerificationNotFound(),
  new Catalogue.AlreadyVerified(),
  new Catalogue.SubmitDocumentFirst(),
  new Catalogue.ResubmitDocumentFirst(),
  new Catalogue.DocumentImageRequired(),
  new Catalogue.LivenessTransactionIdRequired(),
  new Catalogue.CustomerIdRequired(),
  new Catalogue.PhoneNumberRequired(),
  new Catalogue.ProcessingDeadlineExceeded(),
  new Catalogue.EnrolmentRequiresSignIn(),
  new Catalogue.UnsupportedMediaType({ expected: "application/json" }),
  new Catalogue.DocumentHashMismatch(),
  new Catalogue.NotRpContactAccount(),
  new Catalogue.NotCertificateHolder(),
  new Catalogue.AdminTokenRequired(),
  new Catalogue.PaymentCallbackSignatureInvalid(),
  new Catalogue.NotRpContactForProviders(),
  new Catalogue.ExternalSignInStateInvalid(),
  new Catalogue.ExternalIdentityLinkedElsewhere(),
  new Catalogue.ExternalEmailNotVerified(),
  new Catalogue.NotAnEnvelopeRecipient(),
  new Catalogue.SigningRequestNotCompleted(),
  new Catalogue.TimestampUnavailable({ detail: "no answer" }),
  new Catalogue.OAuthError({ code: "invalid_request", description: "consent was not recorded" }),
  new Catalogue.PdfTooLarge({ limit: 10485760 }),
  new Catalogue.PdfUnreadable({ detail: "<why>" }),
  new Catalogue.SignatureImageInvalid({ detail: "<why>" }),
  new Catalogue.PdfDocumentNotFound(),
  new Catalogue.PdfNotYetSigned({ requestStatus: "<status>" }),
  new Catalogue.ConsoleClientRequired(),
  new Catalogue.StepUpRequired({ action: "<action>" }),
  new Catalogue.CertificateSharedWithOtherRps(),
  new Catalogue.NotConfigured({ feature: "Identity verification" }),
  new Catalogue.NotConfigured({ feature: "Currency conversion" }),
  new Catalogue.EmailVerificationRequired(),
  new Catalogue.EmailVerificationFailed(),
  new Catalogue.EmailVerificationLimit({ perHour: 5 }),
  new Catalogue.MailUndeliverable({ detail: "<stage>" }),
  new Catalogue.ExternalAccountCreationRefused(),
]

describe("docs/errors.md", () => {
  it.each(samples.map((e) => [e._tag, e] as const))("documents %s with its exact message and status", (_tag, error) => {
    const row = errorsDoc.split("\n").find((line) => line.includes(`\`${error.message}\``))
    expect(row, `docs/errors.md lacks \`${error.message}\``).toBeDefined()
    expect(row!.startsWith(`| ${error.status} |`)).toBe(true)
  })
})
