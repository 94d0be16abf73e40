/**
 * The standard validation report: a JSON rendering of the elements of ETSI TS 119 102-2 (one
 * signature validation report per signature: its identifier, the main indication and
 * sub-indication of ETSI EN 319 102-1, the signer, the signing time and its proof, the
 * certificate chain with each certificate's revocation status, the signed scope), and a
 * self-contained HTML page of the same content (escaped, no external resources).
 */
import type { TimestampReport } from "./timestamp-verify.ts"
import type { CertificateFinding, MainIndication, ValidationDetails, ValidationReport } from "./validate.ts"

/** One signature as the standard report renders it. */
export interface SignatureValidationReport {
  readonly signatureIdentifier: {
    readonly id: string
    readonly fieldName: string | null
    readonly subFilter: string | null
    readonly digestAlgorithm: string | null
    readonly signatureAlgorithm: string | null
  }
  readonly validationStatus: { readonly mainIndication: MainIndication; readonly subIndication: string | null; readonly problems: ReadonlyArray<string> }
  readonly signerInformation: { readonly subject: string; readonly serial: string } | null
  readonly signingTime: { readonly claimedInSignature: string | null; readonly claimedInPdf: string | null }
  readonly bestSignatureTime: {
    readonly time: string
    readonly proof: "signature-timestamp" | "document-timestamp" | "validation-time"
    readonly timestamp: { readonly valid: boolean; readonly genTime: string | null; readonly tsa: string | null } | null
  }
  readonly certificateChain: ReadonlyArray<CertificateFinding>
  readonly signedScope: {
    readonly kind: "byte-range" | "document-digest"
    readonly byteRange: ReadonlyArray<number> | null
    readonly coversWholeDocument: boolean | null
  }
  /** for a certifying (DocMDP) or field-locking (FieldMDP) signature: the changes made after it; null otherwise */
  readonly modificationStatus: ModificationStatusData | null
}

/** The changes after a certification or a field lock (see pades `ModificationStatus`). */
export interface ModificationStatusData {
  readonly rule: "DocMDP" | "FieldMDP"
  readonly permissions: number | null
  readonly allowedChanges: ReadonlyArray<string>
  readonly forbiddenChanges: ReadonlyArray<string>
  readonly unexaminedRevisions: ReadonlyArray<number>
}

/** The whole standard report. */
export interface StandardValidationReport {
  readonly reportFormat: "ETSI TS 119 102-2"
  readonly validationTime: string
  readonly signatureValidationReports: ReadonlyArray<SignatureValidationReport>
}

/** What the report is made from, per signature: the short report, the details (null when the CMS was unreadable), its place in a PDF. */
export interface ReportInput {
  readonly report: ValidationReport
  readonly details: ValidationDetails | null
  readonly pdf: {
    readonly fieldName: string | null
    readonly subFilter: string | null
    readonly byteRange: ReadonlyArray<number>
    readonly coversWholeDocument: boolean
    readonly claimedSigningTime: string | null
  } | null
  readonly modifications?: ModificationStatusData | null
}

const timestampOf = (t: TimestampReport | null) => (t === null ? null : { valid: t.valid, genTime: t.genTime, tsa: t.tsa?.subject ?? null })

/** The standard report of validated signatures, at `validationTime` (ISO 8601; used when no signature could be read). */
export const standardReport = (inputs: ReadonlyArray<ReportInput>, validationTime: string): StandardValidationReport => ({
  reportFormat: "ETSI TS 119 102-2",
  validationTime: inputs.find((i) => i.details !== null)?.details?.validationTime ?? validationTime,
  signatureValidationReports: inputs.map(({ report, details, pdf, modifications }, n) => ({
    signatureIdentifier: {
      id: pdf?.fieldName ?? `signature-${n + 1}`,
      fieldName: pdf?.fieldName ?? null,
      subFilter: pdf?.subFilter ?? null,
      digestAlgorithm: details?.digestAlgorithm ?? null,
      signatureAlgorithm: details?.signatureAlgorithm ?? null,
    },
    // an unreadable CMS is not a signature that can be judged at all (EN 319 102-1: FORMAT_FAILURE)
    validationStatus: {
      mainIndication: details?.indication ?? "TOTAL-FAILED",
      subIndication: details === null ? "FORMAT_FAILURE" : details.subIndication,
      problems: report.problems,
    },
    signerInformation: report.signer,
    signingTime: { claimedInSignature: report.signingTime, claimedInPdf: pdf?.claimedSigningTime ?? null },
    bestSignatureTime: {
      time: details?.bestSignatureTime.time ?? validationTime,
      proof: details?.bestSignatureTime.proof ?? "validation-time",
      timestamp: timestampOf(report.timestamp),
    },
    certificateChain: details?.certificateChain ?? [],
    signedScope:
      pdf === null
        ? { kind: "document-digest", byteRange: null, coversWholeDocument: null }
        : { kind: "byte-range", byteRange: pdf.byteRange, coversWholeDocument: pdf.coversWholeDocument },
    modificationStatus: modifications ?? null,
  })),
})

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const COLOURS: Record<MainIndication, string> = { "TOTAL-PASSED": "#1b7f3b", INDETERMINATE: "#9a6700", "TOTAL-FAILED": "#b42318" }

/** The standard report as one self-contained HTML page: every value escaped, inline style only, no script, no external resource. */
export const htmlReport = (report: StandardValidationReport): string => {
  const e = (v: string | number | boolean | null | undefined) => escapeHtml(v === null || v === undefined ? "—" : String(v))
  const row = (label: string, value: string) => `<tr><th>${e(label)}</th><td>${value}</td></tr>`
  const signatures = report.signatureValidationReports.map((s) => {
    const status = s.validationStatus
    const chain = s.certificateChain
      .map(
        (c) =>
          `<tr><td>${e(c.subject)}</td><td><code>${e(c.serial)}</code></td><td>${e(c.notBefore)} – ${e(c.notAfter)}</td><td>${c.trustAnchor ? "trust anchor" : e(c.revocation.status)}${
            c.revocation.revokedAt === null ? "" : ` at ${e(c.revocation.revokedAt)}`
          }${c.revocation.source === "none" ? "" : ` (${e(c.revocation.source)})`}</td><td>${c.signatureValid && (c.trustAnchor || c.validAtBestSignatureTime) ? "yes" : "no"}</td></tr>`,
      )
      .join("")
    return `<section class="signature">
<h2>${e(s.signatureIdentifier.id)}: <span class="indication" style="color:${COLOURS[status.mainIndication]}">${e(status.mainIndication)}</span>${
      status.subIndication === null ? "" : ` <span class="sub-indication">${e(status.subIndication)}</span>`
    }</h2>
<table>
${row("Signer", s.signerInformation === null ? e(null) : `${e(s.signerInformation.subject)} (serial <code>${e(s.signerInformation.serial)}</code>)`)}
${row("Algorithms", `${e(s.signatureIdentifier.signatureAlgorithm)}; digest ${e(s.signatureIdentifier.digestAlgorithm)}`)}
${row("Signature format", e(s.signatureIdentifier.subFilter))}
${row("Claimed signing time", `${e(s.signingTime.claimedInSignature ?? s.signingTime.claimedInPdf)}`)}
${row("Best signature time", `${e(s.bestSignatureTime.time)} (proof: ${e(s.bestSignatureTime.proof)})`)}
${row("Signature timestamp", s.bestSignatureTime.timestamp === null ? e(null) : `${e(s.bestSignatureTime.timestamp.genTime)} by ${e(s.bestSignatureTime.timestamp.tsa)}, ${s.bestSignatureTime.timestamp.valid ? "valid" : "not valid"}`)}
${
  s.modificationStatus === null
    ? ""
    : row(
        `${s.modificationStatus.rule} (P=${s.modificationStatus.permissions ?? "—"})`,
        `allowed after it: ${e(s.modificationStatus.allowedChanges.join("; ") || "none")}; forbidden: ${e(s.modificationStatus.forbiddenChanges.join("; ") || "none")}${
          s.modificationStatus.unexaminedRevisions.length === 0
            ? ""
            : `; ${s.modificationStatus.unexaminedRevisions.length} later revision(s) without a signature, not examined`
        }`,
      )
}
${row("Signed scope", s.signedScope.byteRange === null ? "the document digest" : `bytes ${e(s.signedScope.byteRange.join(" "))}${s.signedScope.coversWholeDocument ? ", the whole document" : ", not the whole document (later revisions follow)"}`)}
</table>
<h3>Certificate chain</h3>
<table class="chain"><tr><th>Subject</th><th>Serial</th><th>Validity</th><th>Revocation at the best signature time</th><th>Valid</th></tr>${chain}</table>
${status.problems.length === 0 ? "" : `<h3>Findings</h3><ul>${status.problems.map((p) => `<li>${e(p)}</li>`).join("")}</ul>`}
</section>`
  })
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signature validation report</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem;color:#1f2328}table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left;vertical-align:top}section{border-top:2px solid #d0d7de;margin-top:1.5rem}.sub-indication{font-size:.8em;color:#57606a}</style>
</head><body>
<h1>Signature validation report</h1>
<p>${e(report.reportFormat)} structure; validation time ${e(report.validationTime)}; ${report.signatureValidationReports.length} signature(s).</p>
${signatures.join("\n")}
</body></html>
`
}
