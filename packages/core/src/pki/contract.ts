/**
 * The pki contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// certificates endpoints
/** A signer certificate as its owner sees it. */
export const CertificateView = Schema.Struct({
  serial: Schema.String,
  subject: Schema.String,
  issuerSerial: Schema.NullOr(Schema.String),
  notBefore: Schema.String,
  notAfter: Schema.String,
  status: Schema.Literal("valid", "revoked", "expired"),
  revokedAt: Schema.NullOr(Schema.String),
  revocationReason: Schema.NullOr(Schema.String),
  pem: Schema.String,
  chainPem: Schema.Array(Schema.String).annotations({ description: "the issuing CA's certificate (the root is at GET /v2/ca)" }),
}).annotations({ identifier: "Certificate" })
/** What validating a CMS signature found. */
export const CmsValidationReport = Schema.Struct({
  valid: Schema.Boolean,
  integrity: Schema.Boolean,
  coversDocumentHash: Schema.Boolean,
  signer: Schema.NullOr(Schema.Struct({ subject: Schema.String, serial: Schema.String })),
  chain: Schema.Array(Schema.Struct({ subject: Schema.String, serial: Schema.String, valid: Schema.Boolean })),
  trustedRoot: Schema.Boolean,
  revocation: Schema.Struct({
    status: Schema.Literal("valid", "revoked", "expired", "unknown"),
    revokedAt: Schema.NullOr(Schema.String),
    reason: Schema.NullOr(Schema.String),
    signedBeforeRevocation: Schema.NullOr(Schema.Boolean).annotations({
      description:
        "for a revoked certificate: true when a valid timestamp proves the signature existed before the revocation (the signature then stays valid); null when not revoked",
    }),
  }),
  signingTime: Schema.NullOr(Schema.String),
  timestamp: Schema.NullOr(
    Schema.Struct({
      valid: Schema.Boolean,
      genTime: Schema.NullOr(Schema.String).annotations({ description: "the time the TSA vouches for (ISO 8601)" }),
      tsa: Schema.NullOr(Schema.Struct({ subject: Schema.String, serial: Schema.String })),
      policy: Schema.NullOr(Schema.String),
      serial: Schema.NullOr(Schema.String).annotations({ description: "the token's serial number, hex" }),
      problems: Schema.Array(Schema.String),
    }),
  ).annotations({ description: "the RFC 3161 timestamp over the signature value (levels -T), null when there is none (docs/timestamps.md)" }),
  problems: Schema.Array(Schema.String),
})
/** What validating the signatures of a PDF found. */
export const PdfValidationReport = Schema.Struct({
  signatures: Schema.Array(
    Schema.Struct({
      ...CmsValidationReport.fields,
      fieldName: Schema.NullOr(Schema.String),
      subFilter: Schema.NullOr(Schema.String),
      byteRange: Schema.Array(Schema.Number),
      coversWholeDocument: Schema.Boolean.annotations({ description: "the byte ranges end at the end of the file" }),
      signedRevisionLength: Schema.Number,
      claimedSigningTime: Schema.NullOr(Schema.String).annotations({ description: "/M of the signature dictionary" }),
    }),
  ).annotations({ description: "every signature field of the PDF, oldest revision first" }),
})
/** Answer of `GET /v2/certificates`. */
export const ListCertificatesResponse = Schema.Array(CertificateView)
/** Body of `POST /v2/certificates/{serial}/revoke`. */
export const RevokeCertificateRequest = Schema.Struct({
  reason: Schema.String.annotations({ description: "unspecified, keyCompromise, affiliationChanged, superseded, cessationOfOperation, privilegeWithdrawn" }),
})
/** Body of `POST /v2/relying-parties/{clientId}/certificates/{serial}/revoke`. */
export const RevokeRelyingPartyCertificateRequest = Schema.Struct({
  reason: Schema.String.annotations({ description: "unspecified, keyCompromise, affiliationChanged, superseded, cessationOfOperation, privilegeWithdrawn" }),
})
/** Body of `POST /v2/validate`. */
export const ValidateRequest = Schema.Struct({
  signature: Schema.optional(Schema.String).annotations({ description: "base64 DER of the CMS SignedData (as `signature` / `signatureBase64` answer it)" }),
  documentHash: Schema.optional(Schema.String).annotations({ description: "hex digest of the document (the algorithm of the signature's digest)" }),
  pdf: Schema.optional(Schema.String).annotations({ description: "instead of the two above: base64 of a signed PDF (at most 10 MiB)" }),
})
/** One certificate of a chain in the standard report. */
const CertificateFindingView = Schema.Struct({
  subject: Schema.String,
  serial: Schema.String,
  issuer: Schema.String,
  notBefore: Schema.String,
  notAfter: Schema.String,
  trustAnchor: Schema.Boolean,
  signatureValid: Schema.Boolean.annotations({ description: "its issuer's signature over it holds" }),
  validAtBestSignatureTime: Schema.Boolean,
  revocation: Schema.Struct({
    status: Schema.Literal("good", "revoked", "unknown", "not-checked"),
    revokedAt: Schema.NullOr(Schema.String),
    reason: Schema.NullOr(Schema.String),
    source: Schema.Literal("embedded-crl", "embedded-ocsp", "engine-records", "none").annotations({
      description: "a CRL or an OCSP response embedded in the file or the CMS (used first), or this engine's records of the certificates it issued",
    }),
  }),
})
/** The ETSI TS 119 102-2 structured report (`POST /v2/validate?format=etsi`, docs/validation.md). */
export const StandardValidationReport = Schema.Struct({
  reportFormat: Schema.Literal("ETSI TS 119 102-2"),
  validationTime: Schema.String,
  signatureValidationReports: Schema.Array(
    Schema.Struct({
      signatureIdentifier: Schema.Struct({
        id: Schema.String.annotations({ description: "the PDF field name, or signature-<n>" }),
        fieldName: Schema.NullOr(Schema.String),
        subFilter: Schema.NullOr(Schema.String),
        digestAlgorithm: Schema.NullOr(Schema.String),
        signatureAlgorithm: Schema.NullOr(Schema.String),
      }),
      validationStatus: Schema.Struct({
        mainIndication: Schema.Literal("TOTAL-PASSED", "INDETERMINATE", "TOTAL-FAILED"),
        subIndication: Schema.NullOr(Schema.String).annotations({
          description:
            "ETSI EN 319 102-1 sub-indication: HASH_FAILURE, SIG_CRYPTO_FAILURE, REVOKED, REVOKED_NO_POE, NO_CERTIFICATE_CHAIN_FOUND, OUT_OF_BOUNDS_NO_POE, TRY_LATER…",
        }),
        problems: Schema.Array(Schema.String),
      }),
      signerInformation: Schema.NullOr(Schema.Struct({ subject: Schema.String, serial: Schema.String })),
      signingTime: Schema.Struct({ claimedInSignature: Schema.NullOr(Schema.String), claimedInPdf: Schema.NullOr(Schema.String) }),
      bestSignatureTime: Schema.Struct({
        time: Schema.String,
        proof: Schema.Literal("signature-timestamp", "document-timestamp", "validation-time"),
        timestamp: Schema.NullOr(Schema.Struct({ valid: Schema.Boolean, genTime: Schema.NullOr(Schema.String), tsa: Schema.NullOr(Schema.String) })),
      }),
      certificateChain: Schema.Array(CertificateFindingView).annotations({ description: "signer first, the trust anchor last" }),
      signedScope: Schema.Struct({
        kind: Schema.Literal("byte-range", "document-digest"),
        byteRange: Schema.NullOr(Schema.Array(Schema.Number)),
        coversWholeDocument: Schema.NullOr(Schema.Boolean),
      }),
      modificationStatus: Schema.NullOr(
        Schema.Struct({
          rule: Schema.Literal("DocMDP", "FieldMDP"),
          permissions: Schema.NullOr(Schema.Number),
          allowedChanges: Schema.Array(Schema.String),
          forbiddenChanges: Schema.Array(Schema.String).annotations({
            description: "non-empty: this signature is not valid (INDETERMINATE / SIG_CONSTRAINTS_FAILURE)",
          }),
          unexaminedRevisions: Schema.Array(Schema.Number).annotations({
            description: "end offsets of later revisions that add no signature (a /DSS, form or annotation changes): not examined",
          }),
        }),
      ).annotations({ description: "for a certifying (DocMDP) or field-locking (FieldMDP) signature: the changes made after it" }),
    }),
  ),
}).annotations({ identifier: "StandardValidationReport" })
/** Answer of `POST /v2/validate`: the short form (default), or with `?format=etsi` the standard report. */
export const ValidateResponse = Schema.Union(CmsValidationReport, PdfValidationReport, StandardValidationReport)

// timestamps endpoints
/** Answer of `GET /v2/tsa`. */
export const TimestampAuthorityResponse = Schema.Struct({
  policy: Schema.String,
  accuracySeconds: Schema.Number,
  certificate: Schema.Struct({ serial: Schema.String, subject: Schema.String, notAfter: Schema.String, pem: Schema.String }),
  chainPem: Schema.Array(Schema.String),
})
