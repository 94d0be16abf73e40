/**
 * What an OCSP response carried by the file (a PDF's `/DSS` `/OCSPs`, or the CMS's
 * `adbe-revocationInfoArchival`) says of one certificate: it counts only when it names the
 * certificate (serial and issuer key hash) and is signed by the issuer itself or by a responder
 * the issuer certified for OCSP signing (RFC 6960 §4.2.2.2). Anything unreadable counts for nothing.
 */
import * as asn1js from "asn1js"
import { Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { digest } from "../kernel/digest.ts"
import { bytesEqual } from "../kernel/encoding.ts"
import { verifySignedBytes } from "./signer-verify.ts"

/** One certificate's status in a genuine OCSP response. */
export interface OcspVerdict {
  readonly status: "good" | "revoked" | "unknown"
  readonly revokedAt: Date | null
  readonly reason: number | null
  readonly thisUpdate: Date
  readonly nextUpdate: Date | null
}

const BASIC = "1.3.6.1.5.5.7.48.1.1"
const OCSP_SIGNING = "1.3.6.1.5.5.7.3.9"
const CERT_ID_HASHES: Record<string, "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512"> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
}

const integerBytes = (i: asn1js.Integer) => {
  const bytes = new Uint8Array(i.valueBlock.valueHexView)
  let start = 0
  while (start < bytes.length - 1 && bytes[start] === 0) start++
  return bytes.subarray(start)
}

const signedBy = (subject: pkijs.Certificate, issuer: pkijs.Certificate) =>
  Effect.map(
    verifySignedBytes(issuer.subjectPublicKeyInfo, subject.signatureAlgorithm, new Uint8Array(subject.signatureValue.valueBlock.valueHexView), subject.tbsView),
    (v) => v.outcome === "verified",
  )

/** The status `responseDer` gives `certificate` (issued by `issuer`), or undefined when it is not a genuine answer about it. */
export const ocspVerdict = (responseDer: Uint8Array, certificate: pkijs.Certificate, issuer: pkijs.Certificate): Effect.Effect<OcspVerdict | undefined> =>
  Effect.gen(function* () {
    const parsed = yield* Effect.try(() => {
      const response = pkijs.OCSPResponse.fromBER(new Uint8Array(responseDer))
      if (response.responseStatus.valueBlock.valueDec !== 0 || response.responseBytes?.responseType !== BASIC) throw new Error("not a basic response")
      return pkijs.BasicOCSPResponse.fromBER(new Uint8Array(response.responseBytes.response.valueBlock.valueHexView))
    }).pipe(Effect.option)
    if (Option.isNone(parsed)) return undefined
    const basic = parsed.value
    const serial = integerBytes(certificate.serialNumber)
    const issuerKey = new Uint8Array(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)
    let single: pkijs.SingleResponse | undefined
    for (const r of basic.tbsResponseData.responses) {
      const hash = CERT_ID_HASHES[r.certID.hashAlgorithm.algorithmId]
      if (single !== undefined || hash === undefined || !bytesEqual(integerBytes(r.certID.serialNumber), serial)) continue
      if (bytesEqual(new Uint8Array(r.certID.issuerKeyHash.valueBlock.valueHexView), yield* digest(hash, issuerKey))) single = r
    }
    if (single === undefined) return undefined

    // The responder: the issuer, or a certificate in the response that the issuer signed for OCSP signing.
    const tbs = basic.tbsResponseData.tbsView
    const signature = new Uint8Array(basic.signature.valueBlock.valueHexView)
    const holds = (by: pkijs.Certificate) =>
      Effect.map(verifySignedBytes(by.subjectPublicKeyInfo, basic.signatureAlgorithm, signature, tbs), (v) => v.outcome === "verified")
    let genuine = yield* holds(issuer)
    for (const responder of basic.certs ?? []) {
      if (genuine) break
      const usage = responder.extensions?.find((e) => e.extnID === "2.5.29.37")?.parsedValue
      const forOcsp = usage instanceof pkijs.ExtKeyUsage && usage.keyPurposes.includes(OCSP_SIGNING)
      genuine = forOcsp && (yield* signedBy(responder, issuer)) && (yield* holds(responder))
    }
    if (!genuine) return undefined

    const status = single.certStatus as asn1js.BaseBlock
    const tag = status.idBlock.tagClass === 3 ? status.idBlock.tagNumber : -1
    if (tag === 1 && status instanceof asn1js.Constructed) {
      const time = status.valueBlock.value[0]
      const reason = status.valueBlock.value[1]
      const reasonValue = reason instanceof asn1js.Constructed ? reason.valueBlock.value[0] : undefined
      return {
        status: "revoked",
        revokedAt: time instanceof asn1js.GeneralizedTime ? time.toDate() : null,
        reason: reasonValue instanceof asn1js.Enumerated ? reasonValue.valueBlock.valueDec : null,
        thisUpdate: single.thisUpdate,
        nextUpdate: single.nextUpdate ?? null,
      }
    }
    return { status: tag === 0 ? "good" : "unknown", revokedAt: null, reason: null, thisUpdate: single.thisUpdate, nextUpdate: single.nextUpdate ?? null }
  })
