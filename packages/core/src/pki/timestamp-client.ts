/**
 * The client side of RFC 3161 (§2.4): the DER `TimeStampReq` for an imprint, and the token of a
 * `TimeStampResp` once checked against the request (granted, same imprint, nonce echoed), for
 * adapters that ask an external TSA. Transport stays in the adapter.
 */
import * as asn1js from "asn1js"
import { Either } from "effect"
import * as pkijs from "pkijs"
import type { TimestampRequest } from "./timestamp-authority.ts"
import { bytesEqual } from "../kernel/encoding.ts"
import { CmsOid } from "./cms.ts"
import { IMPRINT_ALGORITHMS } from "./timestamp.ts"

/** The DER TimeStampReq (version 1, certReq as asked, the nonce when given). */
export const timestampQuery = (request: TimestampRequest): Uint8Array =>
  new Uint8Array(
    new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: IMPRINT_ALGORITHMS[request.hashAlgorithm].oid }),
        hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(request.digest) }),
      }),
      ...(request.nonce === undefined ? {} : { nonce: new asn1js.Integer({ valueHex: new Uint8Array(request.nonce) }) }),
      certReq: request.includeCertificates,
    })
      .toSchema()
      .toBER(false),
  )

/** The DER TimeStampToken of a reply to `request`, or why it cannot be used. */
export const tokenOfReply = (reply: Uint8Array, request: TimestampRequest): Either.Either<Uint8Array, string> => {
  try {
    const response = pkijs.TimeStampResp.fromBER(new Uint8Array(reply))
    if (response.status.status !== pkijs.PKIStatus.granted && response.status.status !== pkijs.PKIStatus.grantedWithMods) {
      const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join("; ") ?? ""
      return Either.left(`the TSA refused (status ${response.status.status}${text === "" ? "" : `: ${text}`})`)
    }
    const token = response.timeStampToken
    if (token === undefined || token.contentType !== CmsOid.signedData) return Either.left("the reply has no time-stamp token")
    const signed = new pkijs.SignedData({ schema: token.content })
    const content = signed.encapContentInfo.eContent
    if (signed.encapContentInfo.eContentType !== CmsOid.tstInfo || content === undefined) return Either.left("the token holds no TSTInfo")
    const info = pkijs.TSTInfo.fromBER(content.getValue())
    if (
      info.messageImprint.hashAlgorithm.algorithmId !== IMPRINT_ALGORITHMS[request.hashAlgorithm].oid ||
      !bytesEqual(new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView), request.digest)
    ) {
      return Either.left("the token is over another imprint")
    }
    if (request.nonce !== undefined && (info.nonce === undefined || !bytesEqual(new Uint8Array(info.nonce.valueBlock.valueHexView), request.nonce))) {
      return Either.left("the token does not echo the nonce")
    }
    return Either.right(new Uint8Array(token.toSchema().toBER(false)))
  } catch {
    return Either.left("the reply is not a DER TimeStampResp")
  }
}
