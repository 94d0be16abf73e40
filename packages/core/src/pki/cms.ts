/**
 * Detached CMS SignedData (RFC 5652, CAdES-BES / PAdES baseline attributes) over a document
 * digest, signed by the signer's KeyStore key: pkijs holds the structure, the signature over the
 * DER SET of signed attributes comes from `KeyStore.sign`, converted from P1363 to DER.
 */
import * as asn1js from "asn1js"
import { Effect, Metric } from "effect"
import * as pkijs from "pkijs"
import { setBounded } from "../kernel/bounded-map.ts"
import { sha256 } from "../kernel/digest.ts"
import { toBase64 } from "../kernel/encoding.ts"
import { signaturesMade, withTags } from "../kernel/metrics.ts"
import { traced } from "../kernel/tracing.ts"
import { KeyStore } from "../ports/key-store.ts"
import * as der from "./der.ts"
import { derToP1363, p1363ToDer } from "./ecdsa-signature.ts"
import { derOf } from "./issue-certificate.ts"
import type { SigningIdentity } from "./signer-certificate.ts"

/** Hash algorithms a document digest may be made with. */
export type DigestAlgorithm = "SHA-256" | "SHA-384" | "SHA-512"

const DIGESTS: Record<DigestAlgorithm, { readonly oid: string; readonly ecdsaOid: string; readonly length: number }> = {
  "SHA-256": { oid: "2.16.840.1.101.3.4.2.1", ecdsaOid: "1.2.840.10045.4.3.2", length: 32 },
  "SHA-384": { oid: "2.16.840.1.101.3.4.2.2", ecdsaOid: "1.2.840.10045.4.3.3", length: 48 },
  "SHA-512": { oid: "2.16.840.1.101.3.4.2.3", ecdsaOid: "1.2.840.10045.4.3.4", length: 64 },
}

/** Object identifiers of the CMS content types and signed attributes used here. */
export const CmsOid = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  /** RFC 3161 id-ct-TSTInfo: the content type of a time-stamp token */
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  /** RFC 3161 appendix A / ETSI EN 319 122-1: unsigned attribute holding a time-stamp token over the signature value */
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
} as const

/** X.690 DER order of SET OF: octet-wise, the shorter padded with trailing zero octets. */
const compareDer = (a: Uint8Array, b: Uint8Array): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return a.length - b.length
}

const ber = (value: asn1js.BaseBlock | pkijs.PkiObject): Uint8Array =>
  new Uint8Array(value instanceof pkijs.PkiObject ? value.toSchema().toBER(false) : value.toBER(false))

/** RFC 5035 SigningCertificateV2 naming the signer certificate (hash algorithm SHA-256, the default, omitted). */
const signingCertificateV2 = (certificate: pkijs.Certificate, certificateHash: Uint8Array): asn1js.Sequence =>
  new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [
              new asn1js.OctetString({ valueHex: certificateHash }),
              new asn1js.Sequence({
                value: [
                  new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }).toSchema(),
                  new asn1js.Integer({ valueHex: certificate.serialNumber.valueBlock.valueHexView }),
                ],
              }),
            ],
          }),
        ],
      }),
    ],
  })

const parseCertificate = (der: Uint8Array): Effect.Effect<pkijs.Certificate> =>
  Effect.try(() => pkijs.Certificate.fromBER(new Uint8Array(der))).pipe(Effect.orDie)

/** What signing with a certificate needs that does not change between signatures, encoded once. */
interface PreparedSigner {
  /** DER IssuerAndSerialNumber of the signer certificate (the SignerInfo's sid) */
  readonly sid: Uint8Array
  /** DER signed attribute signingCertificateV2 naming the signer certificate */
  readonly signingCertificate: Uint8Array
  /** DER certificates, signer first, then the chain */
  readonly certificates: ReadonlyArray<Uint8Array>
  /** the SignedData's `certificates [0] IMPLICIT` of them */
  readonly certificateSet: Uint8Array
  readonly verifyKey: CryptoKey
  /** hashes the KeyStore has been seen to sign with correctly under this certificate's key */
  readonly checked: Set<DigestAlgorithm>
}

// Parsing certificates, hashing the signer's, encoding its name and importing its key cost more than
// signing itself; they depend only on the certificates, so they are kept (a bounded memo, by serials).
const PREPARED_LIMIT = 1024
const prepared = new Map<string, PreparedSigner>()

/** The memo's key: the serials of the signer and its chain, and the signer certificate's size. */
const preparedKey = (identity: SigningIdentity): string => {
  let key = `${identity.certificate.serial}/${identity.certificate.der.length}`
  for (const c of identity.chain) key += `/${c.serial}`
  return key
}

/** The prepared signer of `identity` when the memo holds it. */
const knownSigner = (identity: SigningIdentity): PreparedSigner | undefined => prepared.get(preparedKey(identity))

const preparedSigner = (identity: SigningIdentity): Effect.Effect<PreparedSigner> => {
  const cached = knownSigner(identity)
  if (cached !== undefined) return Effect.succeed(cached)
  const key = preparedKey(identity)
  return Effect.gen(function* () {
    const signerDer = yield* derOf(identity.certificate)
    const signer = yield* parseCertificate(signerDer)
    const chain = yield* Effect.forEach(identity.chain, (c) => derOf(c))
    const certificateHash = yield* sha256(signerDer)
    const verifyKey = yield* Effect.promise(() =>
      globalThis.crypto.subtle.importKey("spki", new Uint8Array(ber(signer.subjectPublicKeyInfo)), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]),
    )
    const entry: PreparedSigner = {
      sid: ber(new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber })),
      signingCertificate: ber(new pkijs.Attribute({ type: CmsOid.signingCertificateV2, values: [signingCertificateV2(signer, certificateHash)] })),
      certificates: [signerDer, ...chain],
      certificateSet: der.tlv(der.Tag.context0, signerDer, ...chain),
      verifyKey,
      checked: new Set(),
    }
    setBounded(prepared, key, entry, PREPARED_LIMIT)
    return entry
  })
}

/** DER Attribute { type, SET { value } }. */
const attribute = (type: string, value: Uint8Array | der.Node): Uint8Array =>
  der.encode(der.node(der.Tag.sequence, der.oid(type), der.node(der.Tag.set, value)))

// The signing-time attribute of the last second signed in: signatures in the same second share it.
let lastSigningTime: { readonly second: number; readonly attribute: Uint8Array } | undefined

/** The signingTime attribute (whole seconds, as `der.time` writes them). */
const signingTimeAttribute = (at: Date): Uint8Array => {
  const second = Math.floor(at.getTime() / 1000)
  if (lastSigningTime?.second === second) return lastSigningTime.attribute
  const encoded = attribute(CmsOid.signingTime, der.time(at))
  lastSigningTime = { second, attribute: encoded }
  return encoded
}

// The parts that depend only on an algorithm or a content type, encoded once (read-only: DER parts are copied, never changed).
const encodedOnce = new Map<string, Uint8Array>()
const once = (key: string, encode: () => Uint8Array): Uint8Array => {
  const known = encodedOnce.get(key)
  if (known !== undefined) return known
  const encoded = encode()
  encodedOnce.set(key, encoded)
  return encoded
}

/** DER AlgorithmIdentifier with absent parameters (RFC 5754 for SHA-2, RFC 5758 for ECDSA). */
const algorithmIdentifier = (algorithm: string): Uint8Array => once(`alg ${algorithm}`, () => der.tlv(der.Tag.sequence, der.oid(algorithm)))

/** A time-stamper of a signature value: the DER TimeStampToken over it (CAdES/PAdES -T). */
export type SignatureStamper<E, R> = (signatureValue: Uint8Array) => Effect.Effect<Uint8Array, E, R>

/**
 * Detached CMS SignedData over a document digest; signingTime null leaves the attribute out (PAdES).
 * With `timestamp`, the SignerInfo gets the unsigned `id-aa-signatureTimeStampToken` attribute: a
 * token over the signature value (ETSI EN 319 122-1 §5.3, level -T).
 */
export const signDigest = <E = never, R = never>(input: {
  readonly identity: SigningIdentity
  readonly digest: Uint8Array
  readonly digestAlgorithm: DigestAlgorithm
  readonly signingTime: Date | null
  readonly timestamp?: SignatureStamper<E, R> | undefined
}): Effect.Effect<Uint8Array, E, KeyStore | R> =>
  signContent({ ...input, contentType: CmsOid.data, content: null, includeCertificates: true }).pipe(
    Effect.tap(() => Metric.increment(signaturesMadeWith[input.digestAlgorithm])),
    traced("cms.sign", { attributes: { "signet.digest_algorithm": input.digestAlgorithm, "signet.timestamped": input.timestamp !== undefined } }),
  )

// Tagged once per digest algorithm: tagging a metric builds a new key each time.
const signaturesMadeWith: Record<DigestAlgorithm, typeof signaturesMade> = {
  "SHA-256": withTags(signaturesMade, { digest: "SHA-256" }),
  "SHA-384": withTags(signaturesMade, { digest: "SHA-384" }),
  "SHA-512": withTags(signaturesMade, { digest: "SHA-512" }),
}

/** Encapsulated SignedData over `content` of type `contentType` (a TSTInfo for a time-stamp token). */
export const signEncapsulated = (input: {
  readonly identity: SigningIdentity
  readonly contentType: string
  readonly content: Uint8Array
  readonly includeCertificates: boolean
}): Effect.Effect<Uint8Array, never, KeyStore> =>
  Effect.flatMap(sha256(input.content), (digest) => signContent({ ...input, digest, digestAlgorithm: "SHA-256", signingTime: null }))

/** What signContent is asked for. */
interface ContentToSign<E, R> {
  readonly identity: SigningIdentity
  readonly digest: Uint8Array
  readonly digestAlgorithm: DigestAlgorithm
  readonly signingTime: Date | null
  readonly contentType: string
  /** null: detached */
  readonly content: Uint8Array | null
  readonly includeCertificates: boolean
  readonly timestamp?: SignatureStamper<E, R> | undefined
}

// The steps below are plain functions around the two effects (the KeyStore's signature and the
// optional time stamp): each runtime step costs about as much as the DER they write.
const signContent = <E = never, R = never>(input: ContentToSign<E, R>): Effect.Effect<Uint8Array, E, KeyStore | R> => {
  const { digest, digestAlgorithm } = input
  const algorithm = DIGESTS[digestAlgorithm]
  if (digest.length !== algorithm.length) {
    return Effect.die(new Error(`a ${digestAlgorithm} digest has ${algorithm.length} bytes, not ${digest.length}`))
  }
  const known = knownSigner(input.identity)
  return known !== undefined ? signWith(known, input) : Effect.flatMap(preparedSigner(input.identity), (signer) => signWith(signer, input))
}

const signWith = <E, R>(signer: PreparedSigner, input: ContentToSign<E, R>): Effect.Effect<Uint8Array, E, KeyStore | R> => {
  const { identity, digest, digestAlgorithm } = input
  // The structure around the signature is fixed, so it is written as DER directly (see der.ts).
  const attributes = [
    once(`content-type ${input.contentType}`, () => attribute(CmsOid.contentType, der.oid(input.contentType))),
    attribute(CmsOid.messageDigest, der.node(der.Tag.octetString, digest)),
    signer.signingCertificate,
    ...(input.signingTime === null ? [] : [signingTimeAttribute(input.signingTime)]),
  ].sort(compareDer)
  // What is signed is the DER SET OF the attributes (tag 0x31), not the [0] IMPLICIT form in SignerInfo.
  const signedAttributes = der.tlv(der.Tag.set, ...attributes)
  // Signed with the digest algorithm's own hash (OpenSSL hashes the attributes with it). The first
  // signature under each hash is checked against the certificate, so a store that signs with another
  // key or hash fails loudly, never silently; after that the pair is known good.
  const signed = Effect.flatMap(KeyStore, (store) => Effect.orDie(store.sign(identity.keyId, signedAttributes, digestAlgorithm)))
  return Effect.flatMap(signed, (p1363) => {
    if (signer.checked.has(digestAlgorithm)) return assemble(signer, input, attributes, p1363)
    return Effect.flatMap(
      Effect.promise(() =>
        globalThis.crypto.subtle.verify({ name: "ECDSA", hash: digestAlgorithm }, signer.verifyKey, new Uint8Array(p1363), signedAttributes),
      ),
      (verified) => {
        if (!verified) {
          return Effect.die(
            new Error(
              `KeyStore key ${identity.keyId} gave no valid ECDSA/${digestAlgorithm} signature for its certificate's public key (the store must sign with the requested hash)`,
            ),
          )
        }
        signer.checked.add(digestAlgorithm)
        return assemble(signer, input, attributes, p1363)
      },
    )
  })
}

/** The SignedData around a signature value, with its time stamp when one is asked for. */
const assemble = <E, R>(
  signer: PreparedSigner,
  input: ContentToSign<E, R>,
  attributes: ReadonlyArray<Uint8Array>,
  p1363: Uint8Array,
): Effect.Effect<Uint8Array, E, R> => {
  const signature = p1363ToDer(p1363)
  if (signature === undefined) return Effect.die(new Error(`KeyStore gave a malformed signature (${p1363.length} bytes)`))
  if (input.timestamp === undefined) return Effect.succeed(signedDataOf(signer, input, attributes, signature, undefined))
  return Effect.map(input.timestamp(signature), (token) => signedDataOf(signer, input, attributes, signature, token))
}

/** The DER ContentInfo of the SignedData. */
const signedDataOf = <E, R>(
  signer: PreparedSigner,
  input: ContentToSign<E, R>,
  attributes: ReadonlyArray<Uint8Array>,
  signature: Uint8Array,
  token: Uint8Array | undefined,
): Uint8Array => {
  const algorithm = DIGESTS[input.digestAlgorithm]
  // Written as nodes, then encoded once: the SignedData around the certificates is one allocation.
  const signerInfo = der.node(
    der.Tag.sequence,
    once("version 1", () => der.smallInteger(1)),
    signer.sid,
    algorithmIdentifier(algorithm.oid),
    der.node(der.Tag.context0, ...attributes),
    algorithmIdentifier(algorithm.ecdsaOid),
    der.node(der.Tag.octetString, signature),
    ...(token === undefined ? [] : [der.node(der.Tag.context1, attribute(CmsOid.signatureTimeStampToken, token))]),
  )
  const signedData = der.node(
    der.Tag.sequence,
    // RFC 5652 §5.1: version 3 when the content is not id-data
    once(`version ${input.contentType === CmsOid.data ? 1 : 3}`, () => der.smallInteger(input.contentType === CmsOid.data ? 1 : 3)),
    once(`digest set ${algorithm.oid}`, () => der.tlv(der.Tag.set, algorithmIdentifier(algorithm.oid))),
    der.node(
      der.Tag.sequence,
      der.oid(input.contentType),
      ...(input.content === null ? [] : [der.node(der.Tag.context0, der.node(der.Tag.octetString, input.content))]),
    ),
    ...(input.includeCertificates ? [signer.certificateSet] : []),
    der.node(der.Tag.set, signerInfo),
  )
  return der.encode(der.node(der.Tag.sequence, der.oid(CmsOid.signedData), der.node(der.Tag.context0, signedData)))
}

/** PEM of a DER certificate (or of any DER object under `label`), lines of 64 characters. */
export const toPem = (der: Uint8Array, label = "CERTIFICATE"): string => {
  const lines = toBase64(der).match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join("\n")}${lines.length > 0 ? "\n" : ""}-----END ${label}-----\n`
}

/**
 * Whether a SignerInfo's ECDSA P-256 signature over its signed attributes (the DER SET) verifies
 * with `certificate`'s key under `hash`. Every way it can fail (an unreadable key, a malformed
 * signature) is `false`, never a defect: the bytes come from whoever sent the signature.
 */
export const signedAttributesVerify = (signerInfo: pkijs.SignerInfo, certificate: pkijs.Certificate, hash: DigestAlgorithm): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const attributes = signerInfo.signedAttrs?.attributes ?? []
    const signedAttributes = new Uint8Array(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false))
    const key = yield* Effect.promise(() =>
      globalThis.crypto.subtle
        .importKey("spki", new Uint8Array(certificate.subjectPublicKeyInfo.toSchema().toBER(false)), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"])
        .catch(() => undefined),
    )
    const raw = derToP1363(new Uint8Array(signerInfo.signature.valueBlock.valueHexView), 32)
    if (key === undefined || raw === undefined) return false
    return yield* Effect.promise(() => globalThis.crypto.subtle.verify({ name: "ECDSA", hash }, key, new Uint8Array(raw), signedAttributes).catch(() => false))
  })
