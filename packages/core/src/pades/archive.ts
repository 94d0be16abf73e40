/**
 * PAdES-BASELINE-LTA (ETSI EN 319 142-1 §5.5): a document timestamp over the whole document
 * (`/Type /DocTimeStamp`, `/SubFilter /ETSI.RFC3161`, `/Contents` the RFC 3161 TimeStampToken of
 * the byte ranges' SHA-256) in an incremental update after the `/DSS`, from the
 * `TimestampAuthority` port. Archive renewal puts a new one on top of an LTA file, first adding
 * to `/DSS` the validation data of the newest document timestamp's TSA chain, so the older
 * timestamp stays verifiable after its certificate expires.
 */
import { Effect } from "effect"
import type { TimestampUnavailable } from "../pki/errors.ts"
import { TimestampAuthority } from "../pki/timestamp-authority.ts"
import { concatBytes } from "../kernel/encoding.ts"
import { concatSource, type ByteSource } from "./byte-source.ts"
import type { PdfReadError } from "./document.ts"
import { appendDss } from "./dss.ts"
import type { SignatureTooLargeForPlaceholder } from "./errors.ts"
import { longTermMaterial } from "./long-term.ts"
import { byteRangeDigest, embedSignature, prepareDocumentTimestamp, type PreparedSignature } from "./prepare.ts"
import { scanPdfSignatures } from "./scan-signatures.ts"

/** Room for a TimeStampToken with the TSA's chain (16 KiB of DER). */
export const DOCUMENT_TIMESTAMP_PLACEHOLDER_BYTES = 16 * 1024

/** The TimeStampToken for a prepared document timestamp's byte ranges (SHA-256, the TSA's certificates included). */
export const stampPreparedTimestamp = (digest: Uint8Array): Effect.Effect<Uint8Array, TimestampUnavailable, TimestampAuthority> =>
  Effect.flatMap(TimestampAuthority, (tsa) => tsa.stamp({ hashAlgorithm: "SHA-256", digest, includeCertificates: true }))

/**
 * Adds a document timestamp to `source`: answers the update to append (and the token it holds).
 * Allowed on any document, certified ones included (ISO 32000-2 Table 257).
 */
export const addDocumentTimestamp = (
  source: ByteSource,
  placeholderBytes = DOCUMENT_TIMESTAMP_PLACEHOLDER_BYTES,
): Effect.Effect<
  { readonly prepared: PreparedSignature; readonly update: Uint8Array; readonly token: Uint8Array },
  PdfReadError | TimestampUnavailable | SignatureTooLargeForPlaceholder,
  TimestampAuthority
> =>
  Effect.gen(function* () {
    const prepared = yield* prepareDocumentTimestamp(source, placeholderBytes)
    const token = yield* stampPreparedTimestamp(yield* byteRangeDigest(prepared))
    return { prepared, token, update: yield* embedSignature(prepared, token) }
  })

/**
 * Archive renewal of a PAdES-LTA (or -LT) file: a DSS update with the validation data of its newest
 * document timestamp (the TSA's chain, OCSP, CRL; only what the DSS lacks), then a new document
 * timestamp over everything. Answers the bytes to append to `source`; every earlier signature and
 * timestamp keeps its byte ranges, so stays valid.
 */
export const renewArchive = (source: ByteSource) =>
  Effect.gen(function* () {
    const scan = yield* scanPdfSignatures(source)
    const timestamps = scan.signatures.filter((s) => s.subFilter === "ETSI.RFC3161" && s.cms !== null)
    const newest = timestamps[timestamps.length - 1]
    let appended: Uint8Array = new Uint8Array()
    if (newest !== undefined) {
      const material = yield* longTermMaterial(newest.cms!)
      appended = yield* appendDss(source, material)
    }
    const { update } = yield* addDocumentTimestamp(concatSource(source, appended))
    return concatBytes([appended, update])
  })
