/** The signed-in user's signing certificates, their revocation, and the issuing CA's CRL. */
import {
  answerOcsp,
  certificateAuthority,
  Certificates,
  certificateStatus,
  CertificateView,
  countRequest,
  describeAccount,
  fromBase64,
  holderCertificate,
  InvalidRequest,
  issuingCrl,
  ListCertificatesResponse,
  PDF_UPLOAD_LIMIT,
  PdfTooLarge,
  renewSigningCertificate,
  RevokeCertificateRequest,
  revokeOwnCertificate,
  RevokeRelyingPartyCertificateRequest,
  revokeRelyingPartyUserCertificate,
  STEP_UP_HEADER,
  type StoredCertificate,
  toPem,
  UnsupportedMediaType,
  htmlReport,
  standardReport,
  validatePdfUpload,
  validatePdfUploadDetailed,
  ValidateRequest,
  ValidateResponse,
  validateSignature,
  validateSignatureDetailed,
  type StandardValidationReportData,
} from "@signet/core"
import { Clock, Effect } from "effect"
import { decodeBase64Upload } from "../http/base64.ts"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { readBody } from "../http/body.ts"
import { PDF_BODY_LIMIT } from "../pades/endpoints.ts"

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const view = (c: StoredCertificate) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const ca = yield* certificateAuthority
    const s = certificateStatus(c, now)
    return {
      serial: c.serial,
      subject: c.subject,
      issuerSerial: c.issuerSerial,
      notBefore: iso(c.notBefore)!,
      notAfter: iso(c.notAfter)!,
      status: s.status,
      revokedAt: iso(s.revokedAt),
      revocationReason: s.reason,
      pem: toPem(fromBase64(c.der)!),
      chainPem: c.issuerSerial === ca.issuing.serial ? [toPem(fromBase64(ca.issuing.der)!)] : [],
    }
  })

const serialOf = (raw: string) => raw.toLowerCase()

/** `GET /v2/certificates`. */
export const listCertificatesEndpoint = endpoint({
  method: "GET",
  path: "/v2/certificates",
  tag: "Certificates",
  auth: "bearer",
  scope: "certificates",
  summary: "The signed-in user's signing certificates, newest first, with status (valid, revoked, expired)",
  response: ListCertificatesResponse,
  handle: ({ user }) =>
    Effect.flatMap(Certificates, (c) => c.listByUser(user!.userId)).pipe(
      Effect.flatMap((list) =>
        Effect.forEach(
          list.filter((c) => c.kind === "signer"),
          view,
        ),
      ),
    ),
})

/** `GET /v2/certificates/{serial}`. */
export const getCertificateEndpoint = endpoint({
  method: "GET",
  path: "/v2/certificates/{serial}",
  tag: "Certificates",
  auth: "bearer",
  scope: "certificates",
  summary: "One of the signed-in user's certificates with its status and chain",
  response: CertificateView,
  errors: [{ status: 404, description: "`Certificate not found`" }],
  handle: ({ user, params }) => Effect.flatMap(holderCertificate(user!.userId, serialOf(params["serial"]!)), view),
})

/** `POST /v2/certificates/{serial}/revoke`. */
export const revokeCertificateEndpoint = endpoint({
  method: "POST",
  path: "/v2/certificates/{serial}/revoke",
  tag: "Certificates",
  auth: "bearer",
  scope: "certificates",
  summary: "Revoke one of the signed-in user's certificates (RFC 5280 reason); it never signs again and the CRL lists it",
  body: RevokeCertificateRequest,
  response: CertificateView,
  errors: [
    { status: 400, description: "`reason must be one of …`" },
    {
      status: 403,
      description:
        "`Only the certificate's holder can revoke it`, `Fresh passkey approval required: revoke-certificate` (no, a used or a foreign `Signet-Step-Up` proof)",
    },
    { status: 404, description: "`Certificate not found`" },
  ],
  handle: ({ user, params, body, request }) =>
    Effect.flatMap(revokeOwnCertificate(user!, serialOf(params["serial"]!), body.reason, request.headers.get(STEP_UP_HEADER)), view),
})

/** `POST /v2/relying-parties/{clientId}/certificates/{serial}/revoke`: the RP's contact account revokes a certificate of one of its users. */
export const revokeRelyingPartyCertificateEndpoint = endpoint({
  method: "POST",
  path: "/v2/relying-parties/{clientId}/certificates/{serial}/revoke",
  tag: "Certificates",
  auth: "bearer",
  summary: "As the RP's contact account, revoke a signer certificate that signed a completed request or batch of this RP (RFC 5280 reason)",
  body: RevokeRelyingPartyCertificateRequest,
  response: CertificateView,
  errors: [
    { status: 400, description: "`reason must be one of …`" },
    { status: 403, description: "`Certificate also signed for other relying parties; …`, `Fresh passkey approval required: revoke-certificate`" },
    {
      status: 404,
      description:
        "`RP <clientId> not found` (not the caller's RP, or a token issued to another client), or `Certificate not found` (never signed for this RP)",
    },
  ],
  handle: ({ user, params, body, request }) =>
    Effect.flatMap(
      revokeRelyingPartyUserCertificate(user!, params["clientId"]!, serialOf(params["serial"]!), body.reason, request.headers.get(STEP_UP_HEADER)),
      view,
    ),
})

/** `POST /v2/certificates/renew`: a new key and certificate for the signed-in user. */
export const renewCertificateEndpoint = endpoint({
  method: "POST",
  path: "/v2/certificates/renew",
  tag: "Certificates",
  auth: "bearer",
  scope: "certificates",
  summary: "Renew: a new key and certificate that signs from now on; earlier certificates stay valid until they expire or are revoked",
  response: CertificateView,
  handle: ({ user }) =>
    Effect.gen(function* () {
      const account = yield* describeAccount(user!.userId)
      return yield* view(yield* renewSigningCertificate(account.user))
    }),
})

/** `GET /v2/ca/issuing.crl`: the issuing CA's CRL (DER). */
export const crlEndpoint = endpoint({
  method: "GET",
  path: "/v2/ca/issuing.crl",
  tag: "Certificates",
  auth: "none",
  summary: "The issuing CA's certificate revocation list (DER, application/pkix-crl), made fresh and valid for a day",
  response: { mediaType: "application/pkix-crl" },
  handle: ({ requestId }) =>
    Effect.map(
      issuingCrl,
      (der) =>
        new Response(der, {
          headers: { "content-type": "application/pkix-crl", "cache-control": "public, max-age=300", ...baseHeaders(requestId) },
        }),
    ),
})

const ocspAnswer = (der: Uint8Array, requestId: string) =>
  new Response(new Uint8Array(der), {
    headers: { "content-type": "application/ocsp-response", "cache-control": "no-store", ...baseHeaders(requestId) },
  })

/** `POST /v2/ocsp`: the issuing CA's OCSP responder (RFC 6960), `application/ocsp-request` in, `application/ocsp-response` out. */
export const ocspPostEndpoint = endpoint({
  method: "POST",
  path: "/v2/ocsp",
  tag: "Certificates",
  auth: "none",
  summary: "OCSP responder of the issuing CA (RFC 6960): good, revoked or unknown per certificate, signed by the CA",
  response: { mediaType: "application/ocsp-response" },
  errors: [{ status: 415, description: "not application/ocsp-request" }],
  handle: ({ request, requestId }) =>
    Effect.gen(function* () {
      const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
      if (type !== "application/ocsp-request") return yield* new UnsupportedMediaType({ expected: "application/ocsp-request" })
      return ocspAnswer(yield* answerOcsp(yield* readBody(request, 64 * 1024)), requestId)
    }),
})

/** `GET /v2/ocsp/{request}`: the same for a base64 (URL-encoded) request, as RFC 6960 A.1 allows. */
export const ocspGetEndpoint = endpoint({
  method: "GET",
  path: "/v2/ocsp/{request}",
  tag: "Certificates",
  auth: "none",
  summary: "OCSP responder, GET form: the DER request base64 and URL-encoded in the path",
  response: { mediaType: "application/ocsp-response" },
  handle: ({ params, requestId }) => Effect.map(answerOcsp(fromBase64(params["request"]!) ?? new Uint8Array()), (der) => ocspAnswer(der, requestId)),
})

/** The report formats of `POST /v2/validate` (`?format=`): the short form by default. */
const VALIDATION_FORMATS = ["short", "etsi", "html"] as const

// The HTML report is a whole page of escaped text: no script, no external resource may load.
const htmlAnswer = (report: StandardValidationReportData, requestId: string) =>
  new Response(htmlReport(report), {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
      "cache-control": "no-store",
      ...baseHeaders(requestId),
    },
  })

/**
 * `POST /v2/validate`: what a detached CMS signature over a document hash, or every signature of a PDF, is worth (60 per minute per IP);
 * `?format=etsi` answers the ETSI TS 119 102-2 structured report, `?format=html` the same as a page (docs/validation.md).
 */
export const validateEndpoint = endpoint({
  method: "POST",
  path: "/v2/validate",
  tag: "Certificates",
  auth: "none",
  maxBodyBytes: PDF_BODY_LIMIT,
  summary:
    "Validate a detached CMS signature against a document hash, or every signature of a PDF: integrity, chain to a trust anchor, revocation at the best proof of existence, coverage, timestamp. `?format=etsi`: the ETSI TS 119 102-2 structured report; `?format=html`: the same as an HTML page",
  body: ValidateRequest,
  response: ValidateResponse,
  errors: [
    { status: 400, description: "`signature and documentHash, or pdf, required`, `format must be one of short, etsi, html`, or a field in a wrong format" },
    { status: 413, description: "`PDF too large; the limit is 10485760 bytes (…)`" },
    {
      status: 422,
      description: "`Not a PDF that can be signed: <why>` (the PDF cannot be read), `PDF exceeds a processing limit: <which>` (docs/security/pdf.md)",
    },
    { status: 429, description: "`Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body, clientIp, query, requestId }) =>
    Effect.zipRight(
      countRequest(`validate:${clientIp}`, 60),
      Effect.gen(function* () {
        const format = query.get("format") ?? "short"
        if (!(VALIDATION_FORMATS as ReadonlyArray<string>).includes(format)) {
          return yield* new InvalidRequest({ detail: `format must be one of ${VALIDATION_FORMATS.join(", ")}` })
        }
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        const answer = (report: StandardValidationReportData) => (format === "html" ? htmlAnswer(report, requestId) : report)
        if (body.pdf !== undefined) {
          const pdf = decodeBase64Upload(body.pdf)
          if (pdf === undefined || pdf.length === 0) return yield* new InvalidRequest({ detail: "pdf must be base64" })
          if (pdf.length > PDF_UPLOAD_LIMIT) return yield* new PdfTooLarge({ limit: PDF_UPLOAD_LIMIT })
          if (format === "short") return yield* validatePdfUpload(pdf)
          const validations = yield* validatePdfUploadDetailed(pdf)
          return answer(
            standardReport(
              validations.map(({ report, details, modifications }) => ({ report, details, pdf: report, modifications })),
              now,
            ),
          )
        }
        if (body.signature === undefined || body.documentHash === undefined)
          return yield* new InvalidRequest({ detail: "signature and documentHash, or pdf, required" })
        if (format === "short") return yield* validateSignature(body.signature, body.documentHash)
        const { report, details } = yield* validateSignatureDetailed(body.signature, body.documentHash)
        return answer(standardReport([{ report, details, pdf: null }], now))
      }),
    ),
})

/** Certificate endpoints in document order. */
export const certificateEndpoints = [
  validateEndpoint,
  listCertificatesEndpoint,
  renewCertificateEndpoint,
  getCertificateEndpoint,
  revokeCertificateEndpoint,
  revokeRelyingPartyCertificateEndpoint,
  crlEndpoint,
  ocspPostEndpoint,
  ocspGetEndpoint,
] as const
