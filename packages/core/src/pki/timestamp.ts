/**
 * The built-in timestamp authority (RFC 3161): its own key in the KeyStore
 * (`<environment>/tsa/<n>`) and certificate from the engine's issuing CA, with the critical
 * extended key usage id-kp-timeStamping that RFC 3161 §2.3 requires. A token is a CMS
 * SignedData over a TSTInfo (policy `TSA_POLICY_OID`, random serial, genTime from the Clock
 * in whole seconds with an accuracy of one second, the request's nonce echoed), whose signed
 * attributes name the TSA certificate by an ESSCertIDv2 (RFC 5816).
 */
import * as asn1js from "asn1js"
import { Clock, Effect, Layer, Option } from "effect"
import * as pkijs from "pkijs"
import { EngineConfig, issuerOf as issuerOfEngine, type Environment } from "../ports/engine-config.ts"
import type { KeyStore } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import type { Storage } from "../ports/storage.ts"
import { TimestampAuthority, type ImprintAlgorithm, type TimestampRequest } from "./timestamp-authority.ts"
import { Random } from "../ports/random.ts"
import { certificateAuthority } from "./authority.ts"
import { CmsOid, signEncapsulated } from "./cms.ts"
import { derOf, issueCertificate, issuerOf, rfc4514, validity, type DistinguishedName } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"
import { obtainCertificate, storedCertificate, type KeyToCertify } from "./obtain-certificate.ts"
import type { SigningIdentity } from "./signer-certificate.ts"
import { loadX509 } from "./x509.ts"

/**
 * The policy under which the built-in TSA issues tokens (TSTInfo `policy`): a UUID-based OID
 * (ITU-T X.667, arc 2.25, no registration needed) of UUID 8e40e5a9-f7d3-479a-9661-29ab6e824618.
 * docs/timestamps.md states what it promises.
 */
export const TSA_POLICY_OID = "2.25.189087340538461202977232469376016467480"

/** Dotted text of an OBJECT IDENTIFIER, from its DER (asn1js and pkijs show arcs past 2^53, as in 2.25 UUID OIDs, in hex). */
export const oidText = (oid: asn1js.ObjectIdentifier): string => {
  const der = new Uint8Array(oid.toBER(false))
  const lengthOctet = der[1] ?? 0
  const arcs: Array<bigint> = []
  let value = 0n
  for (let i = 2 + (lengthOctet < 0x80 ? 0 : lengthOctet & 0x7f); i < der.length; i++) {
    value = (value << 7n) | BigInt(der[i]! & 0x7f)
    if ((der[i]! & 0x80) === 0) {
      arcs.push(value)
      value = 0n
    }
  }
  const [head = 0n, ...rest] = arcs
  const top = head < 40n ? 0n : head < 80n ? 1n : 2n
  return [top, head - top * 40n, ...rest].join(".")
}

/** Lifetime of the TSA certificate, in years (never past the issuing CA's). */
export const TSA_VALIDITY_YEARS = 5

/** The stated accuracy of genTime (TSTInfo `accuracy`): genTime is the Clock's time cut to whole seconds. */
export const TSA_ACCURACY_SECONDS = 1

/** Object identifiers of the hash algorithms of a message imprint. */
export const IMPRINT_ALGORITHMS: Readonly<Record<ImprintAlgorithm, { readonly oid: string; readonly length: number }>> = {
  "SHA-256": { oid: "2.16.840.1.101.3.4.2.1", length: 32 },
  "SHA-384": { oid: "2.16.840.1.101.3.4.2.2", length: 48 },
  "SHA-512": { oid: "2.16.840.1.101.3.4.2.3", length: 64 },
}

/** The imprint algorithm of an OID, if it is one the TSA accepts. */
export const imprintAlgorithmOf = (oid: string): ImprintAlgorithm | undefined =>
  (Object.keys(IMPRINT_ALGORITHMS) as Array<ImprintAlgorithm>).find((a) => IMPRINT_ALGORITHMS[a].oid === oid)

/** Subject of the TSA certificate: `CN=Signet Timestamping Authority, O=Signet` (sandbox: `CN=Signet Sandbox Timestamping Authority, OU=SANDBOX, O=Signet`). */
export const tsaSubject = (environment: Environment): DistinguishedName =>
  environment === "sandbox"
    ? [
        { type: "O", value: "Signet" },
        { type: "OU", value: "SANDBOX" },
        { type: "CN", value: "Signet Sandbox Timestamping Authority" },
      ]
    : [
        { type: "O", value: "Signet" },
        { type: "CN", value: "Signet Timestamping Authority" },
      ]

type TsaServices = KeyStore | Certificates | EngineConfig | Random | Storage

/** The TSA's key and current certificate (issued on first use, idempotent and race-safe), with the issuing CA as chain. */
export const timestampIdentity: Effect.Effect<SigningIdentity, never, TsaServices> = Effect.gen(function* () {
  const ca = yield* certificateAuthority
  const settings = yield* EngineConfig
  const { environment } = settings
  const now = yield* Clock.currentTimeMillis
  const subject = tsaSubject(environment)
  const usable = (c: StoredCertificate) =>
    c.kind === "tsa" && c.environment === environment && c.status === "valid" && c.notAfter > now && c.issuerSerial === ca.issuing.serial
  const current = Option.getOrUndefined(Option.filter(yield* Effect.flatMap(Certificates, (c) => c.findCurrentCa("tsa", environment)), usable))
  const certificate =
    current ??
    (yield* obtainCertificate({
      keyIdOf: (generation) => `${environment}/tsa/${generation}`,
      usable,
      issue: (key: KeyToCertify) =>
        Effect.gen(function* () {
          const x509 = yield* loadX509
          const issuerUrl = issuerOfEngine(settings)
          const { notBefore, notAfter } = validity(now, TSA_VALIDITY_YEARS, ca.issuing.notAfter)
          const der = yield* issueCertificate({
            serial: key.serial,
            subject,
            publicKey: key.publicKey,
            issuer: yield* issuerOf(ca.issuing),
            notBefore,
            notAfter,
            extensions: [
              new x509.BasicConstraintsExtension(false, undefined, true),
              new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
              // RFC 3161 §2.3: exactly one extended key usage, id-kp-timeStamping, critical.
              new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.timeStamping], true),
              new x509.AuthorityInfoAccessExtension({ ocsp: `${issuerUrl}/v2/ocsp` }),
              new x509.CRLDistributionPointsExtension([`${issuerUrl}/v2/ca/issuing.crl`]),
            ],
          })
          return storedCertificate({
            key,
            kind: "tsa",
            environment,
            userId: null,
            subject: rfc4514(x509, subject),
            issuerSerial: ca.issuing.serial,
            der,
            notBefore,
            notAfter,
            createdAt: now,
          })
        }),
    }))
  return { keyId: certificate.keyId, certificate, chain: [ca.issuing] }
})

/** A TSTInfo serial: 16 random bytes, positive, always 16 bytes long (unique without a counter). */
const tokenSerial = Effect.flatMap(Random, (r) => r.bytes(16)).pipe(
  Effect.map((b) => {
    b[0] = (b[0]! & 0x3f) | 0x40
    return b
  }),
)

/** The DER TimeStampToken of the built-in TSA for `request` (its length checked: a wrong one is a defect of the caller). */
export const issueTimestampToken = (request: TimestampRequest): Effect.Effect<Uint8Array, never, TsaServices> =>
  Effect.gen(function* () {
    const algorithm = IMPRINT_ALGORITHMS[request.hashAlgorithm]
    if (request.digest.length !== algorithm.length) {
      return yield* Effect.die(new Error(`a ${request.hashAlgorithm} imprint has ${algorithm.length} bytes, not ${request.digest.length}`))
    }
    const identity = yield* timestampIdentity
    const tsaCertificate = pkijs.Certificate.fromBER(new Uint8Array(yield* derOf(identity.certificate)))
    const now = yield* Clock.currentTimeMillis
    const info = new pkijs.TSTInfo({
      version: 1,
      policy: TSA_POLICY_OID,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: algorithm.oid }),
        hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(request.digest) }),
      }),
      serialNumber: new asn1js.Integer({ valueHex: yield* tokenSerial }),
      genTime: new Date(Math.floor(now / 1000) * 1000),
      accuracy: new pkijs.Accuracy({ seconds: TSA_ACCURACY_SECONDS }),
      ...(request.nonce === undefined ? {} : { nonce: new asn1js.Integer({ valueHex: new Uint8Array(request.nonce) }) }),
      tsa: new pkijs.GeneralName({ type: 4, value: tsaCertificate.subject }),
    })
    return yield* signEncapsulated({
      identity,
      contentType: CmsOid.tstInfo,
      content: new Uint8Array(info.toSchema().toBER(false)),
      includeCertificates: request.includeCertificates,
    })
  })

/** The built-in TSA as the `TimestampAuthority` (it never fails: it signs with the engine's own keys). */
export const TimestampAuthorityBuiltIn: Layer.Layer<TimestampAuthority, never, TsaServices> = Layer.effect(
  TimestampAuthority,
  Effect.map(Effect.context<TsaServices>(), (context) =>
    TimestampAuthority.of({
      stamp: (request) => issueTimestampToken(request).pipe(Effect.provide(context)),
    }),
  ),
)
