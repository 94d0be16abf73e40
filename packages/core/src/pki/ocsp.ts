/**
 * The OCSP responder (RFC 6960) of the issuing CA: answers `good`, `revoked` (time and reason)
 * or `unknown` for each certificate asked about, signed by the issuing CA's key in the
 * KeyStore (the CA answers for itself, so relying parties need no separate responder
 * certificate). A request's nonce is echoed so answers cannot be replayed.
 */
import * as asn1js from "asn1js"
import { Clock, Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { digest } from "../kernel/digest.ts"
import { bytesEqual, toHex } from "../kernel/encoding.ts"
import { KeyStore } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import { certificateAuthority } from "./authority.ts"
import { p1363ToDer } from "./ecdsa-signature.ts"
import { derOf } from "./issue-certificate.ts"
import { REVOCATION_REASONS, type RevocationReason } from "./revocation.ts"

const OID = {
  basic: "1.3.6.1.5.5.7.48.1.1",
  nonce: "1.3.6.1.5.5.7.48.1.2",
  sha1: "1.3.14.3.2.26",
  sha256: "2.16.840.1.101.3.4.2.1",
  ecdsaSha256: "1.2.840.10045.4.3.2",
} as const

/** How long an answer is current (`nextUpdate`). */
export const OCSP_VALIDITY_MS = 3_600_000

const ber = (o: { toSchema: () => { toBER: () => ArrayBuffer } }) => new Uint8Array(o.toSchema().toBER())

/** An OCSPResponse with only a status (malformedRequest = 1, internalError = 2). */
const statusOnly = (status: number) => new Uint8Array(new pkijs.OCSPResponse({ responseStatus: new asn1js.Enumerated({ value: status }) }).toSchema().toBER())

// certStatus CHOICE: good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] IMPLICIT NULL.
const good = () => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } })
const unknown = () => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 } })
const revoked = (at: Date, reason: number) =>
  new asn1js.Constructed({
    idBlock: { tagClass: 3, tagNumber: 1 },
    value: [
      new asn1js.GeneralizedTime({ valueDate: at }),
      new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [new asn1js.Enumerated({ value: reason })] }),
    ],
  })

/** Answers a DER OCSPRequest with a DER OCSPResponse. */
export const answerOcsp = (requestDer: Uint8Array) =>
  Effect.gen(function* () {
    const parsed = yield* Effect.try(() => pkijs.OCSPRequest.fromBER(new Uint8Array(requestDer))).pipe(Effect.option)
    if (Option.isNone(parsed) || parsed.value.tbsRequest.requestList.length === 0) return statusOnly(1)
    const request = parsed.value
    const ca = yield* certificateAuthority
    const issuing = pkijs.Certificate.fromBER(new Uint8Array(yield* derOf(ca.issuing)))
    const issuerName = ber(issuing.subject)
    const issuerKey = new Uint8Array(issuing.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)
    const certificates = yield* Certificates
    const now = yield* Clock.currentTimeMillis
    const thisUpdate = new Date(Math.floor(now / 1000) * 1000)

    const responses: Array<pkijs.SingleResponse> = []
    for (const entry of request.tbsRequest.requestList) {
      const id = entry.reqCert
      const algorithm = id.hashAlgorithm.algorithmId === OID.sha1 ? "SHA-1" : id.hashAlgorithm.algorithmId === OID.sha256 ? "SHA-256" : undefined
      let status: asn1js.BaseBlock = unknown()
      if (algorithm !== undefined) {
        const ours =
          bytesEqual(new Uint8Array(id.issuerNameHash.valueBlock.valueHexView), yield* digest(algorithm, issuerName)) &&
          bytesEqual(new Uint8Array(id.issuerKeyHash.valueBlock.valueHexView), yield* digest(algorithm, issuerKey))
        const serial = toHex(new Uint8Array(id.serialNumber.valueBlock.valueHexView)).replace(/^(00)+(?=[0-9a-f])/, "")
        const found = ours ? yield* certificates.findBySerial(serial) : Option.none()
        if (Option.isSome(found) && found.value.issuerSerial === ca.issuing.serial) {
          const c = found.value
          status =
            c.status === "revoked"
              ? revoked(new Date(c.revokedAt ?? now), REVOCATION_REASONS[(c.revocationReason ?? "unspecified") as RevocationReason] ?? 0)
              : good()
        }
      }
      responses.push(new pkijs.SingleResponse({ certID: id, certStatus: status, thisUpdate, nextUpdate: new Date(thisUpdate.getTime() + OCSP_VALIDITY_MS) }))
    }

    const nonce = request.tbsRequest.requestExtensions?.find((e) => e.extnID === OID.nonce)
    const data = new pkijs.ResponseData({
      responderID: new asn1js.OctetString({ valueHex: yield* digest("SHA-1", issuerKey) }),
      producedAt: thisUpdate,
      responses,
      ...(nonce !== undefined
        ? {
            responseExtensions: [new pkijs.Extension({ extnID: OID.nonce, extnValue: new Uint8Array(nonce.extnValue.valueBlock.valueHexView).slice().buffer })],
          }
        : {}),
    })
    const tbs = new Uint8Array(data.toSchema(true).toBER())
    data.tbs = tbs.slice().buffer
    const signature = p1363ToDer(yield* Effect.flatMap(KeyStore, (k) => k.sign(ca.issuing.keyId, tbs)).pipe(Effect.orDie))
    if (signature === undefined) return statusOnly(2)
    const basic = new pkijs.BasicOCSPResponse({
      tbsResponseData: data,
      signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaSha256 }),
      signature: new asn1js.BitString({ valueHex: signature }),
      certs: [issuing],
    })
    return new Uint8Array(
      new pkijs.OCSPResponse({
        responseStatus: new asn1js.Enumerated({ value: 0 }),
        responseBytes: new pkijs.ResponseBytes({ responseType: OID.basic, response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER() }) }),
      })
        .toSchema()
        .toBER(),
    )
  })
