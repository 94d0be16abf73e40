/**
 * Verifying the signature of a CMS SignerInfo with its certificate's own key algorithm
 * (SubjectPublicKeyInfo): RSA PKCS#1 v1.5, RSA-PSS (parameters from the SignerInfo), ECDSA on
 * P-256, P-384 and P-521, and Ed25519, each with the hash the SignerInfo names. With signed
 * attributes, what is signed is their DER SET as it was sent; without them, the content itself,
 * of which only its digest is known here: RSA PKCS#1 v1.5 is checked against the digest
 * (RFC 8017 §8.2.2 by arithmetic); the others are reported unsupported, never as failing.
 */
import * as asn1js from "asn1js"
import { Effect } from "effect"
import * as pkijs from "pkijs"
import type { DigestAlgorithm } from "./cms.ts"
import { derToP1363 } from "./ecdsa-signature.ts"
import { imprintAlgorithmOf } from "./timestamp.ts"

/** What checking a SignerInfo's signature found. */
export interface SignerVerification {
  /** `verified`: the signature holds; `failed`: it does not; `unsupported`: this engine cannot judge it */
  readonly outcome: "verified" | "failed" | "unsupported"
  /** the algorithm as a person reads it (`RSA-PSS with SHA-384`, `ECDSA P-521 with SHA-512`, `Ed25519`), null when unknown */
  readonly algorithm: string | null
  readonly detail: string | null
}

const OID = {
  rsaEncryption: "1.2.840.113549.1.1.1",
  rsaPss: "1.2.840.113549.1.1.10",
  ecPublicKey: "1.2.840.10045.2.1",
  ed25519: "1.3.101.112",
  sha1: "1.3.14.3.2.26",
} as const

const CURVES: Record<string, { readonly name: "P-256" | "P-384" | "P-521"; readonly size: number }> = {
  "1.2.840.10045.3.1.7": { name: "P-256", size: 32 },
  "1.3.132.0.34": { name: "P-384", size: 48 },
  "1.3.132.0.35": { name: "P-521", size: 66 },
}

/** The hash a signature algorithm identifier names itself (sha384WithRSAEncryption, ecdsa-with-SHA512...), if any. */
const HASH_OF_SIGNATURE_ALGORITHM: Record<string, DigestAlgorithm> = {
  "1.2.840.113549.1.1.11": "SHA-256",
  "1.2.840.113549.1.1.12": "SHA-384",
  "1.2.840.113549.1.1.13": "SHA-512",
  "1.2.840.10045.4.3.2": "SHA-256",
  "1.2.840.10045.4.3.3": "SHA-384",
  "1.2.840.10045.4.3.4": "SHA-512",
}

/** RFC 8017 §9.2 note 1: the DER DigestInfo prefix of each hash. */
const DIGEST_INFO_PREFIX: Record<DigestAlgorithm, string> = {
  "SHA-256": "3031300d060960864801650304020105000420",
  "SHA-384": "3041300d060960864801650304020205000430",
  "SHA-512": "3051300d060960864801650304020305000440",
}

const subtle = () => globalThis.crypto.subtle

const bigIntOf = (bytes: Uint8Array): bigint => {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  return n
}

const modPow = (base: bigint, exponent: bigint, modulus: bigint): bigint => {
  let result = 1n
  let b = base % modulus
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus
    b = (b * b) % modulus
  }
  return result
}

/** RSASSA-PKCS1-v1_5 verification against a message digest (RFC 8017 §8.2.2), for signatures without signed attributes. */
const rsaPkcs1VerifiesDigest = (spki: pkijs.PublicKeyInfo, signature: Uint8Array, hash: DigestAlgorithm, digest: Uint8Array): boolean => {
  const key = pkijs.RSAPublicKey.fromBER(new Uint8Array(spki.subjectPublicKey.valueBlock.valueHexView))
  const modulusBytes = new Uint8Array(key.modulus.valueBlock.valueHexView)
  const n = bigIntOf(modulusBytes)
  const e = bigIntOf(new Uint8Array(key.publicExponent.valueBlock.valueHexView))
  const s = bigIntOf(signature)
  if (n === 0n || s >= n) return false
  const k = modulusBytes[0] === 0 ? modulusBytes.length - 1 : modulusBytes.length
  const encoded = modPow(s, e, n)
    .toString(16)
    .padStart(k * 2, "0")
  const digestInfo = DIGEST_INFO_PREFIX[hash] + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
  const padding = k * 2 - 6 - digestInfo.length
  return padding >= 16 && encoded === `0001${"ff".repeat(padding / 2)}00${digestInfo}`
}

/** The bytes the signer signed over: the signed attributes as sent, their [0] IMPLICIT tag made the SET tag (RFC 5652 §5.4). */
const signedAttributesBytes = (signerInfo: pkijs.SignerInfo): Uint8Array | undefined => {
  const encoded = signerInfo.signedAttrs?.encodedValue
  if (encoded === undefined || encoded.byteLength === 0) return undefined
  const bytes = new Uint8Array(encoded.slice(0))
  bytes[0] = 0x31
  return bytes
}

/**
 * Verifies `signerInfo`'s signature with `certificate`'s key. `contentDigest` is the digest of the
 * signed content with `hash` (the SignerInfo's digest algorithm), used when there are no signed
 * attributes. Every way the bytes can be wrong is `failed` or `unsupported`, never a defect.
 */
export const verifySignerInfo = (
  signerInfo: pkijs.SignerInfo,
  certificate: pkijs.Certificate,
  hash: DigestAlgorithm,
  contentDigest: Uint8Array,
): Effect.Effect<SignerVerification> =>
  verifyWith(
    certificate.subjectPublicKeyInfo,
    signerInfo.signatureAlgorithm,
    hash,
    new Uint8Array(signerInfo.signature.valueBlock.valueHexView),
    signedAttributesBytes(signerInfo),
    contentDigest,
  )

/** Verifies `signature` (under `algorithm`, as an X.509 or OCSP structure names it) over `data` with the key `spki`. */
export const verifySignedBytes = (spki: pkijs.PublicKeyInfo, algorithm: pkijs.AlgorithmIdentifier, signature: Uint8Array, data: Uint8Array) =>
  verifyWith(spki, algorithm, HASH_OF_SIGNATURE_ALGORITHM[algorithm.algorithmId] ?? "SHA-256", signature, data, new Uint8Array())

const verifyWith = (
  spki: pkijs.PublicKeyInfo,
  signatureAlgorithm: pkijs.AlgorithmIdentifier,
  hash: DigestAlgorithm,
  signature: Uint8Array,
  signed: Uint8Array | undefined,
  contentDigest: Uint8Array,
): Effect.Effect<SignerVerification> =>
  Effect.gen(function* () {
    const keyOid = spki.algorithm.algorithmId
    const signatureOid = signatureAlgorithm.algorithmId
    const spkiDer = new Uint8Array(spki.toSchema().toBER(false))
    const unsupported = (algorithm: string | null, detail: string) => ({ outcome: "unsupported" as const, algorithm, detail })
    const judged = (algorithm: string, holds: boolean) => ({
      outcome: holds ? ("verified" as const) : ("failed" as const),
      algorithm,
      detail: holds ? null : "the signature does not verify with the signer's certificate",
    })
    const verify = (
      params: AlgorithmIdentifier | RsaPssParams | EcdsaParams,
      importParams: AlgorithmIdentifier | RsaHashedImportParams | EcKeyImportParams,
      raw: Uint8Array,
    ) =>
      Effect.promise(() =>
        subtle()
          .importKey("spki", spkiDer, importParams, false, ["verify"])
          .then((key) => subtle().verify(params, key, new Uint8Array(raw), new Uint8Array(signed!)))
          .catch(() => false),
      )

    if (keyOid === OID.rsaEncryption) {
      if (signatureOid === OID.rsaPss) {
        const params = yield* Effect.try(() => new pkijs.RSASSAPSSParams({ schema: signatureAlgorithm.algorithmParams })).pipe(Effect.option)
        if (params._tag === "None") return { outcome: "failed", algorithm: "RSA-PSS", detail: "unreadable RSA-PSS parameters" }
        const pssHash = imprintAlgorithmOf(params.value.hashAlgorithm.algorithmId)
        const mgfHash = params.value.maskGenAlgorithm.algorithmParams
        const mgfHashOid =
          mgfHash instanceof asn1js.Sequence ? (mgfHash.valueBlock.value[0] as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() : OID.sha1
        if (pssHash === undefined || imprintAlgorithmOf(mgfHashOid ?? "") !== pssHash)
          return unsupported("RSA-PSS", "RSA-PSS with a hash other than SHA-256/384/512 or a different MGF1 hash")
        const name = `RSA-PSS with ${pssHash}`
        if (signed === undefined) return unsupported(name, "RSA-PSS without signed attributes")
        return judged(name, yield* verify({ name: "RSA-PSS", saltLength: params.value.saltLength }, { name: "RSA-PSS", hash: pssHash }, signature))
      }
      const rsaHash = HASH_OF_SIGNATURE_ALGORITHM[signatureOid] ?? (signatureOid === OID.rsaEncryption ? hash : undefined)
      if (rsaHash === undefined) return unsupported("RSA", `signature algorithm ${signatureOid}`)
      const name = `RSA PKCS#1 v1.5 with ${rsaHash}`
      if (signed === undefined) {
        const holds = yield* Effect.try(() => rsaHash === hash && rsaPkcs1VerifiesDigest(spki, signature, hash, contentDigest)).pipe(
          Effect.orElseSucceed(() => false),
        )
        return judged(name, holds)
      }
      return judged(name, yield* verify({ name: "RSASSA-PKCS1-v1_5" }, { name: "RSASSA-PKCS1-v1_5", hash: rsaHash }, signature))
    }

    if (keyOid === OID.ecPublicKey) {
      const curveOid = spki.algorithm.algorithmParams instanceof asn1js.ObjectIdentifier ? spki.algorithm.algorithmParams.valueBlock.toString() : ""
      const curve = CURVES[curveOid]
      if (curve === undefined) return unsupported("ECDSA", `elliptic curve ${curveOid || "with explicit parameters"}`)
      const ecHash = HASH_OF_SIGNATURE_ALGORITHM[signatureOid] ?? hash
      const name = `ECDSA ${curve.name} with ${ecHash}`
      if (signed === undefined) return unsupported(name, "ECDSA without signed attributes")
      const raw = derToP1363(signature, curve.size)
      if (raw === undefined) return judged(name, false)
      return judged(name, yield* verify({ name: "ECDSA", hash: ecHash }, { name: "ECDSA", namedCurve: curve.name }, raw))
    }

    if (keyOid === OID.ed25519) {
      // RFC 8419: pure EdDSA over the signed attributes; without them, over the whole content, which is not here.
      if (signed === undefined) return unsupported("Ed25519", "Ed25519 without signed attributes")
      return judged("Ed25519", yield* verify({ name: "Ed25519" }, { name: "Ed25519" }, signature))
    }

    return unsupported(null, `public key algorithm ${keyOid}`)
  })
