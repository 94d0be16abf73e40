/** Public surface of the PKI capability: the engine's CA, signer certificates, CMS, revocation, OCSP, timestamps. */
export { ISSUING_VALIDITY_YEARS, ROOT_VALIDITY_YEARS, certificateAuthority } from "./authority.ts"
export type { CertificateAuthority } from "./authority.ts"
export { signDigest, toPem } from "./cms.ts"
export type { DigestAlgorithm, SignatureStamper } from "./cms.ts"
export {
  CertificateView,
  CmsValidationReport,
  ListCertificatesResponse,
  PdfValidationReport,
  RevokeCertificateRequest,
  RevokeRelyingPartyCertificateRequest,
  StandardValidationReport,
  TimestampAuthorityResponse,
  ValidateRequest,
  ValidateResponse,
} from "./contract.ts"
export { NotCertificateHolder, TimestampUnavailable, pkiErrors } from "./errors.ts"
export type { PkiError } from "./errors.ts"
export { CLOCK_SKEW_MS } from "./issue-certificate.ts"
export type { CertificateIssuer, CertificateTemplate, DistinguishedName, NameAttribute } from "./issue-certificate.ts"
export { CertificateKind, StoredCertificate } from "./model.ts"
export { OCSP_VALIDITY_MS, answerOcsp } from "./ocsp.ts"
export { Certificates } from "./ports.ts"
export type { CurrentCas } from "./ports.ts"
export {
  CRL_VALIDITY_MS,
  REVOCATION_REASONS,
  certificateStatus,
  holderCertificate,
  issuingCrl,
  revokeCertificate,
  revokeOwnCertificate,
  revokeRelyingPartyUserCertificate,
} from "./revocation.ts"
export type { RevocationReason } from "./revocation.ts"
export { SIGNER_VALIDITY_YEARS, renewSigningCertificate, signingIdentityFor } from "./signer-certificate.ts"
export type { SigningIdentity, UserCertificateKind } from "./signer-certificate.ts"
export { TimestampAuthority } from "./timestamp-authority.ts"
export type { ImprintAlgorithm, TimestampRequest } from "./timestamp-authority.ts"
export { timestampQuery, tokenOfReply } from "./timestamp-client.ts"
export { answerTimestampRequest } from "./timestamp-reply.ts"
export type { TimestampReport } from "./timestamp-verify.ts"
export { IMPRINT_ALGORITHMS, TSA_ACCURACY_SECONDS, TSA_POLICY_OID, TSA_VALIDITY_YEARS, TimestampAuthorityBuiltIn, timestampIdentity } from "./timestamp.ts"
export { TrustAnchors, certificatesOfPem } from "./trust-anchors.ts"
export { htmlReport, standardReport } from "./validation-report.ts"
export type { ReportInput, SignatureValidationReport, StandardValidationReport as StandardValidationReportData } from "./validation-report.ts"
export { validateSignature, validateSignatureDetailed, validateSignedData } from "./validate.ts"
export type {
  CertificateFinding,
  DetailedValidation,
  EmbeddedMaterial,
  MainIndication,
  RevocationSource,
  ValidationDetails,
  ValidationReport,
} from "./validate.ts"
