/**
 * The RFC 3161 protocol (§2.4): a DER `TimeStampReq` in, a DER `TimeStampResp` out. What the
 * TSA cannot honour is answered as the RFC says, inside the reply (status `rejection` with a
 * PKIFailureInfo bit), never as an HTTP error, so standard clients read why.
 */
import * as asn1js from "asn1js"
import { Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { sha256 } from "../kernel/digest.ts"
import { Random } from "../ports/random.ts"
import { TimestampAuthority } from "./timestamp-authority.ts"
import { IMPRINT_ALGORITHMS, imprintAlgorithmOf, oidText, TSA_POLICY_OID } from "./timestamp.ts"

/** PKIFailureInfo bits (RFC 3161 §2.4.2) the TSA answers with. */
const FAILURE = { badAlg: 0, badRequest: 2, badDataFormat: 5, unacceptedPolicy: 15, unacceptedExtension: 16, systemFailure: 25 } as const

/** DER named BIT STRING with one bit set (trailing zero bits dropped, as DER wants). */
const failureBits = (bit: number): asn1js.BitString => {
  const bytes = new Uint8Array((bit >> 3) + 1)
  bytes[bit >> 3] = 0x80 >> (bit & 7)
  return new asn1js.BitString({ valueHex: bytes, unusedBits: 7 - (bit & 7) })
}

const reply = (response: pkijs.TimeStampResp): Uint8Array => new Uint8Array(response.toSchema().toBER(false))

const rejection = (failure: keyof typeof FAILURE, text: string): Uint8Array =>
  reply(
    new pkijs.TimeStampResp({
      status: new pkijs.PKIStatusInfo({
        status: pkijs.PKIStatus.rejection,
        statusStrings: [new asn1js.Utf8String({ value: text })],
        failInfo: failureBits(FAILURE[failure]),
      }),
    }),
  )

/** The reqPolicy of a DER TimeStampReq in dotted form (read from the DER: pkijs renders the 2.25 arc in hex). */
const requestedPolicy = (requestDer: Uint8Array): string | undefined => {
  const parsed = asn1js.fromBER(new Uint8Array(requestDer)).result
  const third = parsed instanceof asn1js.Sequence ? parsed.valueBlock.value[2] : undefined
  return third instanceof asn1js.ObjectIdentifier ? oidText(third) : undefined
}

/** Answers a DER TimeStampReq with a DER TimeStampResp (granted with a token, or a rejection saying why). */
export const answerTimestampRequest = (requestDer: Uint8Array) =>
  Effect.gen(function* () {
    const parsed = yield* Effect.try(() => pkijs.TimeStampReq.fromBER(new Uint8Array(requestDer))).pipe(Effect.option)
    if (Option.isNone(parsed)) return rejection("badDataFormat", "the request is not a DER TimeStampReq")
    const request = parsed.value
    if (request.version !== 1) return rejection("badRequest", "only version 1 requests are understood")
    const algorithm = imprintAlgorithmOf(request.messageImprint.hashAlgorithm.algorithmId)
    if (algorithm === undefined) return rejection("badAlg", "the message imprint must be SHA-256, SHA-384 or SHA-512")
    const digest = new Uint8Array(request.messageImprint.hashedMessage.valueBlock.valueHexView)
    if (digest.length !== IMPRINT_ALGORITHMS[algorithm].length)
      return rejection("badDataFormat", `a ${algorithm} imprint has ${IMPRINT_ALGORITHMS[algorithm].length} bytes`)
    const policy = requestedPolicy(requestDer)
    if (policy !== undefined && policy !== TSA_POLICY_OID) return rejection("unacceptedPolicy", `the only policy is ${TSA_POLICY_OID}`)
    if ((request.extensions ?? []).length > 0) return rejection("unacceptedExtension", "no request extension is supported")

    const token = yield* Effect.flatMap(TimestampAuthority, (tsa) =>
      tsa.stamp({
        hashAlgorithm: algorithm,
        digest,
        nonce: request.nonce === undefined ? undefined : new Uint8Array(request.nonce.valueBlock.valueHexView),
        includeCertificates: request.certReq === true,
      }),
    ).pipe(Effect.either)
    if (token._tag === "Left") return rejection("systemFailure", "the timestamp authority is unavailable")
    return reply(
      new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
        timeStampToken: pkijs.ContentInfo.fromBER(new Uint8Array(token.right)),
      }),
    )
  })

/**
 * The -T stamper of a signature (ETSI EN 319 122-1 §5.3): a token over the SHA-256 of the
 * SignerInfo's signature value, with the TSA's certificates (so a verifier and a PDF's DSS have
 * them) and a random nonce.
 */
export const stampSignatureValue = (signatureValue: Uint8Array) =>
  Effect.gen(function* () {
    const digest = yield* sha256(signatureValue)
    const nonce = yield* Effect.flatMap(Random, (r) => r.bytes(8))
    // a positive INTEGER in minimal DER: top bit clear, and a first byte that is never 0x00 (a leading zero before
    // a byte below 0x80 is non-minimal and refused as "illegal padding"; it came up once in 256 stamps)
    nonce[0] = (nonce[0]! & 0x7f) | 0x40
    return yield* Effect.flatMap(TimestampAuthority, (tsa) => tsa.stamp({ hashAlgorithm: "SHA-256", digest, nonce, includeCertificates: true }))
  })
