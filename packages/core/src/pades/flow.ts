/**
 * PAdES signing through the engine: a relying party hands in a PDF, the engine prepares the
 * signature update and opens an ordinary single signing request (format PAdES-BASELINE-B, or
 * PAdES-BASELINE-T for levels -T and -LT) over the SHA-256 of the byte ranges, so the passkey
 * approval and its dynamic linking are exactly those of hash signing; once approved, the CMS
 * goes into the placeholder and the signed PDF can be fetched (at -LT with a DSS update after it).
 */
import { Clock, Effect, Option } from "effect"
import { signatureImageOf } from "../documents/signature-image.ts"
import { DocumentHashAndCredentialRequired } from "../signing/errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { PdfDocumentNotFound, PdfNotYetSigned, PdfTooLarge } from "./errors.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { concatBytes, fromBase64, toHex } from "../kernel/encoding.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Vault } from "../ports/vault.ts"
import { type PadesLevel, PreparedPdfs } from "./ports.ts"
import { SigningRequests } from "../signing/ports.ts"
import { Users } from "../identity/ports.ts"
import { createSigningRequest } from "../signing/single.ts"
import { longTermMaterial } from "./long-term.ts"
import { DOCUMENT_TIMESTAMP_PLACEHOLDER_BYTES, stampPreparedTimestamp } from "./archive.ts"
import type { MdpPermissions } from "./modification-rules.ts"
import { embedAt, type VisibleSignature } from "./prepare.ts"
import { PdfProcessor } from "./processor.ts"

/** Largest PDF the HTTP flow takes (10 MiB); larger files are signed through the library API on a file source. */
export const PDF_UPLOAD_LIMIT = 10 * 1024 * 1024

/** What `POST /v2/sign/pdf` takes, decoded. */
export interface PreparePdfSigning {
  readonly pdf: Uint8Array
  readonly credentialId?: string | undefined
  readonly documentName?: string | undefined
  readonly loa?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly rpOrigin?: string | undefined
  readonly reason?: string | undefined
  readonly location?: string | undefined
  readonly visible?: VisibleSignature | undefined
  /** `PAdES-BASELINE-B` (default), `PAdES-BASELINE-T`, `PAdES-BASELINE-LT` or `PAdES-BASELINE-LTA` */
  readonly level?: string | undefined
  /** sign as certifier (DocMDP) with these permissions; only as the document's first signature */
  readonly certify?: { readonly permissions: number } | undefined
  /** the existing empty signature field to fill */
  readonly field?: string | undefined
}

const PADES_LEVELS: ReadonlyArray<PadesLevel> = ["PAdES-BASELINE-B", "PAdES-BASELINE-T", "PAdES-BASELINE-LT", "PAdES-BASELINE-LTA"]

/** Prepared and signed PDFs are kept for a day (housekeeping deletes them after that). */
export const PREPARED_PDF_RETENTION_MS = 24 * 60 * 60 * 1000

const VAULT_PURPOSE = "pades-document"

/** Checks a visible-signature placement: a page number and a rectangle with area. */
const checkPlacement = (visible: VisibleSignature | undefined) => {
  if (visible === undefined) return Effect.void
  if (!Number.isInteger(visible.page) || visible.page < 1) return Effect.fail(new InvalidRequest({ detail: "visible.page must be a page number from 1" }))
  const [x1, y1, x2, y2] = visible.rect
  if (visible.rect.length !== 4 || visible.rect.some((n) => !Number.isFinite(n)) || x1 === x2 || y1 === y2) {
    return Effect.fail(new InvalidRequest({ detail: "visible.rect must be [x1, y1, x2, y2] in PDF points with a non-empty area" }))
  }
  return Effect.void
}

/** A visible signature without an image draws the signer's own signature image, when they set one. */
const withStoredImage = (userId: string, visible: VisibleSignature | undefined) =>
  visible === undefined || visible.image !== undefined
    ? Effect.succeed(visible)
    : Effect.map(
        signatureImageOf(userId),
        Option.match({
          onNone: () => visible,
          onSome: (stored): VisibleSignature => ({ ...visible, image: stored.png }),
        }),
      )

/** `POST /v2/sign/pdf`: prepares the signature and opens the signing request that approves it. */
export const preparePdfSigning = (user: BearerUser, input: PreparePdfSigning) =>
  Effect.gen(function* () {
    if (input.pdf.length > PDF_UPLOAD_LIMIT) return yield* new PdfTooLarge({ limit: PDF_UPLOAD_LIMIT })
    if (!input.credentialId) return yield* new DocumentHashAndCredentialRequired()
    yield* checkPlacement(input.visible)
    const level = PADES_LEVELS.find((l) => l === (input.level ?? "PAdES-BASELINE-B"))
    if (level === undefined) return yield* new InvalidRequest({ detail: `level must be one of ${PADES_LEVELS.join(" | ")}` })
    const permissions = input.certify?.permissions
    if (input.certify !== undefined && permissions !== 1 && permissions !== 2 && permissions !== 3) {
      return yield* new InvalidRequest({ detail: "certify.permissions must be 1, 2 or 3" })
    }
    const signer = yield* Effect.flatMap(Users, (u) => u.findById(user.userId))
    const now = yield* Clock.currentTimeMillis
    const signerName = Option.match(signer, { onNone: () => "Signet user", onSome: (u) => u.displayName })
    // Parsing the upload is the heavy, input-driven part: it runs where the processor runs it (a worker).
    const processor = yield* PdfProcessor
    const prepared = yield* processor.prepare(input.pdf, {
      signerName,
      signingTime: new Date(now),
      reason: input.reason,
      location: input.location,
      visible: yield* withStoredImage(user.userId, input.visible),
      certify: permissions === undefined ? undefined : { permissions: permissions as MdpPermissions },
      field: input.field,
    })
    const digest = prepared.digest
    const created = yield* createSigningRequest(user, {
      documentHash: toHex(digest),
      credentialId: input.credentialId,
      documentName: input.documentName ?? "document.pdf",
      // -LT and -LTA sign as -T; the DSS (and the document timestamp) are added when the signed PDF is fetched.
      signatureFormat: level === "PAdES-BASELINE-B" ? "PAdES-BASELINE-B" : "PAdES-BASELINE-T",
      loa: input.loa,
      callbackUrl: input.callbackUrl,
      rpOrigin: input.rpOrigin,
    })
    const whole = concatBytes([input.pdf, prepared.update])
    const sealed = yield* Effect.flatMap(Vault, (v) => v.seal(whole, VAULT_PURPOSE, created.requestId))
    yield* Effect.flatMap(PreparedPdfs, (p) =>
      p.insert({
        requestId: created.requestId,
        clientId: user.clientId,
        userId: user.userId,
        sealed,
        contentsOffset: prepared.contentsOffset,
        contentsBytes: prepared.contentsBytes,
        fieldName: prepared.fieldName,
        level,
        createdAt: now,
      }),
    ).pipe(Effect.orDie)
    const settings = yield* EngineConfig
    return {
      ...created,
      documentHash: toHex(digest),
      byteRange: [...prepared.byteRange],
      fieldName: prepared.fieldName,
      documentUrl: `${settings.basePath}/v2/sign/pdf/${created.requestId}/document`,
    }
  })

/** `GET /v2/sign/pdf/{requestId}/document`: the signed PDF, for the RP that asked for it. */
export const signedPdf = (user: BearerUser, requestId: string) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(PreparedPdfs, (p) => p.findByRequestId(requestId))
    // The signer's own document, through the client that asked for it: another user of the same RP gets 404.
    if (Option.isNone(found) || found.value.clientId !== user.clientId || found.value.userId !== user.userId) return yield* new PdfDocumentNotFound()
    const pdf = found.value
    const request = yield* Effect.flatMap(SigningRequests, (r) => r.findById(requestId))
    if (Option.isNone(request)) return yield* new PdfDocumentNotFound()
    if (request.value.status !== "completed" || request.value.signature === null) return yield* new PdfNotYetSigned({ requestStatus: request.value.status })
    const whole = yield* Effect.flatMap(Vault, (v) => v.open(pdf.sealed, VAULT_PURPOSE, requestId))
    const cms = fromBase64(request.value.signature)!
    const signed = yield* embedAt(whole, pdf.contentsOffset, pdf.contentsBytes, cms).pipe(Effect.orDie)
    if (pdf.level !== "PAdES-BASELINE-LT" && pdf.level !== "PAdES-BASELINE-LTA") return signed
    // -LT: a second incremental update with the DSS, its OCSP responses and CRL as of now.
    const processor = yield* PdfProcessor
    // The document was read once already (prepare); only a worker's deadline or heap can stop it now: 422, not 500.
    const dss = yield* processor.appendDss(signed, yield* longTermMaterial(cms)).pipe(Effect.catchTag("PdfUnreadable", (e) => Effect.die(e)))
    const longTerm = concatBytes([signed, dss])
    if (pdf.level !== "PAdES-BASELINE-LTA") return longTerm
    // -LTA: a third update, the document timestamp over all of it.
    const stamp = yield* processor.prepareTimestamp(longTerm, DOCUMENT_TIMESTAMP_PLACEHOLDER_BYTES).pipe(Effect.catchTag("PdfUnreadable", (e) => Effect.die(e)))
    const token = yield* stampPreparedTimestamp(stamp.digest)
    const withTimestamp = concatBytes([longTerm, stamp.update])
    return yield* embedAt(withTimestamp, stamp.contentsOffset, stamp.contentsBytes, token).pipe(Effect.orDie)
  })
