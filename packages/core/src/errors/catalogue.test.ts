import { Arbitrary, FastCheck } from "effect"
import { describe, expect, it } from "vitest"
// The package root: the catalogue must cover every error class the core publishes.
import * as E from "../index.ts"

// The "Messages by condition" table of the interface spec, copied character for character.
const SPEC: ReadonlyArray<readonly [E.CataloguedError, string, number]> = [
  [new E.MissingAuthorizationHeader(), "Missing Authorization header", 401],
  [new E.InvalidOrExpiredToken(), "Invalid or expired token", 401],
  [new E.TokenMissingSubject(), "Token missing subject claim", 401],
  [new E.CsrfValidationFailed(), "CSRF token validation failed", 403],
  [new E.InvalidClient(), "invalid_client", 401],
  [new E.UnknownRpClientId(), "Unknown RP client_id", 403],
  [new E.RpNotApproved({ rpStatus: "suspended" }), "RP registration not approved. Status: suspended", 403],
  [new E.InvalidClientCredentials(), "Invalid client credentials", 403],
  [new E.LoaExceedsMaximum({ requested: "LOA-4", maximum: "LOA-2" }), "Requested LOA LOA-4 exceeds RP maximum LOA-2", 403],
  [new E.Loa4RequiresKycVerifiedRp(), "LOA-4 requires KYC-verified RP", 403],
  [new E.UserNotFoundForEmail({ email: "a@b.co" }), "User not found for email: a@b.co", 404],
  [new E.NoCredentialForUser(), "No credential found for user", 404],
  [new E.RpOriginNotAuthorized({ origin: "https://evil.example" }), "RP origin not authorized: https://evil.example", 403],
  [new E.PasskeySignatureInvalid(), "Passkey signature verification failed", 403],
  [new E.ChallengeMismatch(), "Challenge mismatch — dynamic linking failed", 403],
  [new E.OriginMismatch(), "Origin mismatch — possible phishing attack", 403],
  [new E.UserVerificationRequired(), "User verification required — biometric or PIN not confirmed", 403],
  [new E.RpIdMismatch(), "Passkey was created for a different site (RP ID mismatch)", 403],
  [new E.CredentialNotRegistered(), "Credential not registered", 403],
  [new E.OperationExpired(), "Operation expired or not found", 410],
  [new E.DocumentHashAndCredentialRequired(), "documentHash and credentialId required", 400],
  [new E.NoSigningCredential(), "No signing credential found for user", 404],
  [new E.SigningRequestNotFound(), "Signing request not found or already processed", 404],
  [new E.RateLimitExceeded(), "Rate limit exceeded. Please try again later.", 429],
  [new E.BatchSizeExceeded({ size: 11, maximum: 10 }), "Batch size 11 exceeds maximum 10", 429],
  [new E.KycVerificationNotFound(), "KYC verification not found", 404],
  [new E.AlreadyVerified(), "This verification is already verified", 409],
  [new E.SubmitDocumentFirst(), "Submit the document before the liveness step", 409],
  [new E.ResubmitDocumentFirst(), "Resubmit the document before the liveness step", 409],
  [new E.DocumentImageRequired(), "At least one document image is required", 422],
  [new E.LivenessTransactionIdRequired(), "A liveness transaction id is required", 422],
  [new E.CustomerIdRequired(), "customer_id is required", 422],
  [new E.PhoneNumberRequired(), "phone_number is required", 422],
]

describe("error catalogue", () => {
  it.each(SPEC.map(([e, m, s]) => [e._tag, e, m, s] as const))("%s carries the spec's message and status", (_tag, error, message, status) => {
    expect(error.message).toBe(message)
    expect(error.status).toBe(status)
    expect(E.isCatalogued(error)).toBe(true)
  })

  it("templated messages keep the spec's fixed text around the data", () => {
    const daily = new E.DailySigningLimitExceeded({ used: 100, maximum: 100, resetsAt: "2026-11-26T00:00:00Z" })
    expect(daily.message).toMatch(/^Daily signing limit exceeded \(.*100.*100.*2026-11-26T00:00:00Z.*\)$/)
    expect(daily.status).toBe(429)
    expect(new E.RpUrnNotOwned({ urn: "urn:signet:rp_1:42", detail: "held by +254700000001" }).message).toBe(
      "rp_urn urn:signet:rp_1:42 does not belong to this customer_id: held by +254700000001",
    )
    expect(new E.PhoneNumberTaken({ phoneNumber: "+254700000001", detail: "a@b.co" }).message).toBe(
      "phone_number +254700000001 already belongs to another customer: a@b.co",
    )
    for (const reason of ["no_country_code", "wrong_digit_count", "unused_range", "email_without_tld"] as const) {
      const e = new E.InvalidIdentifierFormat({ value: "x", reason })
      expect(e.status).toBe(422)
      expect(e.message).toContain("x")
    }
  })

  // Instances with data drawn from each class's own Schema (a status may depend on the data, as OAuthError's does).
  const samplesOf = (Ctor: unknown): ReadonlyArray<unknown> =>
    FastCheck.sample(Arbitrary.make(Ctor as Parameters<typeof Arbitrary.make>[0]), { numRuns: 5, seed: 14 })

  it("every catalogued error is a tagged failure with a 4xx or 5xx status and a message", () => {
    expect(E.CATALOGUE.length).toBeGreaterThan(80)
    for (const Ctor of E.CATALOGUE) {
      for (const error of samplesOf(Ctor)) {
        expect(error, Ctor._tag).toBeInstanceOf(Ctor)
        const { _tag, status, message } = error as { _tag: string; status: unknown; message: unknown }
        expect(_tag).toBe(Ctor._tag)
        expect(typeof status === "number" && status >= 400 && status <= 599, `${_tag} status ${String(status)}`).toBe(true)
        expect(typeof message === "string" && message.length > 0, `${_tag} message`).toBe(true)
        expect(E.isCatalogued(error)).toBe(true)
      }
    }
  })

  it("tags are unique across modules", () => {
    expect(new Set(E.CATALOGUE.map((c) => c._tag)).size).toBe(E.CATALOGUE.length)
  })

  it("every error class the core exports with an HTTP status is in a module's list", () => {
    const catalogued = new Set<unknown>(E.CATALOGUE)
    const withStatus = Object.entries(E).filter(
      ([, value]) =>
        typeof value === "function" &&
        value.prototype instanceof Error &&
        "fields" in value &&
        samplesOf(value).some((error) => typeof (error as { status?: unknown }).status === "number"),
    )
    expect(withStatus.length).toBeGreaterThan(80)
    expect(withStatus.filter(([, value]) => !catalogued.has(value)).map(([name]) => name)).toEqual([])
  })

  it("errors outside the catalogue are not mapped", () => {
    expect(E.isCatalogued(new E.UniqueViolation({ what: "email" }))).toBe(false)
    expect(E.isCatalogued({ _tag: "Unknown", status: 400, message: "nope" })).toBe(false)
  })
})
