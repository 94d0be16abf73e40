/**
 * CMS envelopes for documents. The engine writes AuthEnvelopedData (RFC 5083) with AES-256-GCM
 * content encryption (RFC 5084) and one RSAES-OAEP (SHA-256) KeyTransRecipientInfo per recipient
 * certificate (RFC 5652 §6.2.1, RFC 8017); `openssl cms -decrypt` reads it. It opens both
 * AuthEnvelopedData with AES-GCM and EnvelopedData with AES-CBC (what `openssl cms -encrypt -aes256`
 * writes), key transport by RSAES-OAEP only: RSAES-PKCS1-v1_5 (openssl's default for RSA) is
 * refused, because its decryption is a padding oracle (Bleichenbacher) that Node no longer offers.
 * The content-encryption key is unwrapped by `KeyStore.decrypt`, so private keys never leave the store.
 */
import * as asn1js from "asn1js"
import { Effect } from "effect"
import * as pkijs from "pkijs"
import { InvalidRequest } from "../kernel/errors.ts"
import { NotAnEnvelopeRecipient } from "./errors.ts"
import { concatBytes, toHex } from "../kernel/encoding.ts"
import { KeyStore, type OaepHash } from "../ports/key-store.ts"
import { Random } from "../ports/random.ts"

/** Object identifiers of the envelope structures and algorithms used here. */
export const EnvelopeOid = {
  data: "1.2.840.113549.1.7.1",
  envelopedData: "1.2.840.113549.1.7.3",
  authEnvelopedData: "1.2.840.113549.1.9.16.1.23",
  rsaEncryption: "1.2.840.113549.1.1.1",
  rsaesOaep: "1.2.840.113549.1.1.7",
  mgf1: "1.2.840.113549.1.1.8",
  pSpecified: "1.2.840.113549.1.1.9",
  aes256Gcm: "2.16.840.1.101.3.4.1.46",
} as const

const HASHES: Record<string, OaepHash> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
}
const SHA256_OID = "2.16.840.1.101.3.4.2.1"

/** Content ciphers the engine opens: AES-GCM (authenticated) and AES-CBC, by key length. */
const CIPHERS: Record<string, { readonly mode: "AES-GCM" | "AES-CBC"; readonly keyBytes: number }> = {
  "2.16.840.1.101.3.4.1.6": { mode: "AES-GCM", keyBytes: 16 },
  "2.16.840.1.101.3.4.1.26": { mode: "AES-GCM", keyBytes: 24 },
  "2.16.840.1.101.3.4.1.46": { mode: "AES-GCM", keyBytes: 32 },
  "2.16.840.1.101.3.4.1.2": { mode: "AES-CBC", keyBytes: 16 },
  "2.16.840.1.101.3.4.1.22": { mode: "AES-CBC", keyBytes: 24 },
  "2.16.840.1.101.3.4.1.42": { mode: "AES-CBC", keyBytes: 32 },
}

/** A certificate an envelope can be addressed to, with the KeyStore key that opens it. */
export interface EnvelopeKey {
  /** DER certificate */
  readonly certificate: Uint8Array
  /** KeyStore id of the certified RSA-OAEP key */
  readonly keyId: string
}

const algorithmId = (oid: string, params?: asn1js.BaseBlock) =>
  new asn1js.Sequence({ value: params === undefined ? [new asn1js.ObjectIdentifier({ value: oid })] : [new asn1js.ObjectIdentifier({ value: oid }), params] })

/** RSAES-OAEP-params with SHA-256 and MGF1-SHA-256 (the label is empty, the default). */
const oaepSha256 = () =>
  algorithmId(
    EnvelopeOid.rsaesOaep,
    new asn1js.Sequence({
      value: [
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [algorithmId(SHA256_OID)] }),
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [algorithmId(EnvelopeOid.mgf1, algorithmId(SHA256_OID))] }),
      ],
    }),
  )

const parseCertificate = (der: Uint8Array) => Effect.try(() => pkijs.Certificate.fromBER(new Uint8Array(der))).pipe(Effect.orDie)

const subtle = () => globalThis.crypto.subtle

/**
 * AuthEnvelopedData (DER, in a ContentInfo) of `plain` for each recipient certificate:
 * AES-256-GCM under a fresh key and nonce, the key wrapped with RSAES-OAEP SHA-256 per recipient.
 */
export const sealEnvelope = (plain: Uint8Array, recipients: ReadonlyArray<Uint8Array>): Effect.Effect<Uint8Array, never, Random> =>
  Effect.gen(function* () {
    const random = yield* Random
    const cek = yield* random.bytes(32)
    const nonce = yield* random.bytes(12)
    const sealed = new Uint8Array(
      yield* Effect.promise(async () => {
        const key = await subtle().importKey("raw", new Uint8Array(cek), "AES-GCM", false, ["encrypt"])
        return subtle().encrypt({ name: "AES-GCM", iv: new Uint8Array(nonce), tagLength: 128 }, key, new Uint8Array(plain))
      }),
    )
    const infos = yield* Effect.forEach(recipients, (der) =>
      Effect.gen(function* () {
        const certificate = yield* parseCertificate(der)
        const spki = new Uint8Array(certificate.subjectPublicKeyInfo.toSchema().toBER(false))
        const wrapped = yield* Effect.promise(async () => {
          const key = await subtle().importKey("spki", spki, { name: "RSA-OAEP", hash: "SHA-256" }, false, ["encrypt"])
          return new Uint8Array(await subtle().encrypt({ name: "RSA-OAEP" }, key, new Uint8Array(cek)))
        })
        return new asn1js.Sequence({
          value: [
            new asn1js.Integer({ value: 0 }),
            new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }).toSchema(),
            oaepSha256(),
            new asn1js.OctetString({ valueHex: wrapped }),
          ],
        })
      }),
    )
    const ciphertext = sealed.slice(0, sealed.length - 16)
    const mac = sealed.slice(sealed.length - 16)
    const envelope = new asn1js.Sequence({
      value: [
        new asn1js.Integer({ value: 0 }),
        new asn1js.Set({ value: infos }),
        new asn1js.Sequence({
          value: [
            new asn1js.ObjectIdentifier({ value: EnvelopeOid.data }),
            algorithmId(
              EnvelopeOid.aes256Gcm,
              new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: nonce }), new asn1js.Integer({ value: 16 })] }),
            ),
            new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: ciphertext }),
          ],
        }),
        new asn1js.OctetString({ valueHex: mac }),
      ],
    })
    const contentInfo = new asn1js.Sequence({
      value: [
        new asn1js.ObjectIdentifier({ value: EnvelopeOid.authEnvelopedData }),
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [envelope] }),
      ],
    })
    return new Uint8Array(contentInfo.toBER(false))
  })

const MALFORMED = "envelopedData is not a CMS EnvelopedData or AuthEnvelopedData (RFC 5652, RFC 5083) in a ContentInfo, DER or BER"
// One message for every failure after the recipient is found: a wrapped key that does not unwrap
// and content that does not authenticate must look alike (no padding oracle).
const UNDECRYPTABLE = "The EnvelopedData does not decrypt: its wrapped key or its content was altered"

class Malformed extends Error {}
const must = <T>(value: T | undefined | null | false): T => {
  if (value === undefined || value === null || value === false) throw new Malformed()
  return value
}
const isUniversal = (b: asn1js.BaseBlock, tagNumber: number) => b.idBlock.tagClass === 1 && b.idBlock.tagNumber === tagNumber
const isContext = (b: asn1js.BaseBlock, tagNumber: number) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === tagNumber
const children = (b: asn1js.BaseBlock): ReadonlyArray<asn1js.BaseBlock> => {
  const value = (b.valueBlock as { value?: unknown }).value
  return must(Array.isArray(value) && (value as ReadonlyArray<asn1js.BaseBlock>))
}
const oidOf = (b: asn1js.BaseBlock | undefined): string => must(b instanceof asn1js.ObjectIdentifier && b.valueBlock.toString())
/** The bytes of an OCTET STRING (or an IMPLICIT-tagged one), primitive or constructed (BER chunks). */
const octets = (b: asn1js.BaseBlock): Uint8Array => {
  if (!b.idBlock.isConstructed) return new Uint8Array((b.valueBlock as unknown as { valueHexView: Uint8Array }).valueHexView)
  return concatBytes(children(b).map(octets))
}
const stripZeros = (hex: string) => hex.replace(/^(00)+(?=..)/, "")

interface KeyTransport {
  readonly issuer: Uint8Array | null
  readonly serial: string | null
  readonly subjectKeyId: string | null
  readonly algorithm: asn1js.BaseBlock
  readonly encryptedKey: Uint8Array
}

interface ParsedEnvelope {
  readonly authenticated: boolean
  readonly recipients: ReadonlyArray<KeyTransport>
  readonly cipherOid: string
  readonly cipherParams: asn1js.BaseBlock | undefined
  readonly ciphertext: Uint8Array
  readonly mac: Uint8Array | null
  /** DER of the authenticated attributes as a SET OF (the GCM additional data), when present */
  readonly aad: Uint8Array | null
}

const parseEnvelope = (der: Uint8Array): ParsedEnvelope => {
  const decoded = asn1js.fromBER(new Uint8Array(der))
  must(decoded.offset !== -1 && decoded.offset === der.length)
  const top = children(must(isUniversal(decoded.result, 16) && decoded.result))
  const type = oidOf(top[0])
  const authenticated = type === EnvelopeOid.authEnvelopedData
  must(authenticated || type === EnvelopeOid.envelopedData)
  const body = must(top[1] !== undefined && isContext(top[1], 0) && children(top[1])[0])
  const fields = [...children(must(isUniversal(body, 16) && body))]
  must(fields.shift() instanceof asn1js.Integer)
  if (fields[0] !== undefined && isContext(fields[0], 0)) fields.shift() // originatorInfo
  const infos = must(fields.shift())
  must(isUniversal(infos, 17))
  const recipients = children(infos).flatMap((info): Array<KeyTransport> => {
    // Only KeyTransRecipientInfo (an untagged SEQUENCE) can name an RSA key; other kinds are skipped.
    if (!isUniversal(info, 16)) return []
    const [, rid, algorithm, encryptedKey] = children(info)
    must(rid !== undefined && algorithm !== undefined && encryptedKey instanceof asn1js.OctetString)
    if (isContext(rid!, 0)) {
      return [{ issuer: null, serial: null, subjectKeyId: toHex(octets(rid!)), algorithm: algorithm!, encryptedKey: octets(encryptedKey!) }]
    }
    const [issuer, serial] = children(rid!)
    must(issuer !== undefined && serial instanceof asn1js.Integer)
    return [
      {
        issuer: new Uint8Array(issuer!.toBER(false)),
        serial: stripZeros(toHex(new Uint8Array((serial as asn1js.Integer).valueBlock.valueHexView))),
        subjectKeyId: null,
        algorithm: algorithm!,
        encryptedKey: octets(encryptedKey!),
      },
    ]
  })
  const content = children(must(fields.shift()))
  const cipher = children(must(content[1]))
  const encrypted = must(content[2] !== undefined && isContext(content[2], 0) && content[2])
  let aad: Uint8Array | null = null
  let mac: Uint8Array | null = null
  if (authenticated) {
    if (fields[0] !== undefined && isContext(fields[0], 1)) {
      const attributes = fields.shift()!
      aad = new Uint8Array(new asn1js.Set({ value: [...children(attributes)] }).toBER(false))
    }
    mac = octets(must(fields[0] instanceof asn1js.OctetString && fields[0]))
  }
  return { authenticated, recipients, cipherOid: oidOf(cipher[0]), cipherParams: cipher[1], ciphertext: octets(encrypted), mac, aad }
}

/** The OAEP hash an RSAES-OAEP AlgorithmIdentifier names (SHA-1 by default); a message when it is not usable. */
const oaepHashOf = (algorithm: asn1js.BaseBlock): { readonly hash: OaepHash } | string => {
  const [oid, params] = children(algorithm)
  const name = oidOf(oid)
  if (name === EnvelopeOid.rsaEncryption) {
    return "the key is wrapped with RSAES-PKCS1-v1_5, which the engine does not accept; use RSAES-OAEP (openssl cms -encrypt ... -keyopt rsa_padding_mode:oaep)"
  }
  if (name !== EnvelopeOid.rsaesOaep) return `key transport ${name} is not supported; use RSAES-OAEP`
  let hash = "1.3.14.3.2.26"
  let mgfHash = "1.3.14.3.2.26"
  for (const field of params === undefined || params instanceof asn1js.Null ? [] : children(params)) {
    const inner = children(field)[0]!
    if (isContext(field, 0)) hash = oidOf(children(inner)[0])
    else if (isContext(field, 1)) {
      must(oidOf(children(inner)[0]) === EnvelopeOid.mgf1)
      mgfHash = oidOf(children(children(inner)[1]!)[0])
    } else if (isContext(field, 2)) {
      if (octets(must(children(inner)[1])).length > 0) return "RSAES-OAEP with a label is not supported"
    }
  }
  const oaep = HASHES[hash]
  if (oaep === undefined || HASHES[mgfHash] !== oaep) return "RSAES-OAEP must use SHA-1, SHA-256, SHA-384 or SHA-512 with MGF1 of the same hash"
  return { hash: oaep }
}

const refuse = (detail: string) => new InvalidRequest({ detail })

/**
 * The plaintext of an envelope addressed to one of `keys` (a user's encryption certificates,
 * newest first). 400 for a malformed or unsupported envelope or one that does not decrypt; 403
 * `NotAnEnvelopeRecipient` when none of its recipients is one of the keys.
 */
export const openEnvelope = (der: Uint8Array, keys: ReadonlyArray<EnvelopeKey>): Effect.Effect<Uint8Array, InvalidRequest | NotAnEnvelopeRecipient, KeyStore> =>
  Effect.gen(function* () {
    const parsed = yield* Effect.try({ try: () => parseEnvelope(der), catch: () => refuse(MALFORMED) })
    const candidates = yield* Effect.forEach(keys, (key) =>
      Effect.map(parseCertificate(key.certificate), (c) => {
        const ski = c.extensions?.find((e) => e.extnID === "2.5.29.14")
        return {
          key,
          issuer: toHex(new Uint8Array(c.issuer.toSchema().toBER(false))),
          serial: stripZeros(toHex(new Uint8Array(c.serialNumber.valueBlock.valueHexView))),
          subjectKeyId: ski === undefined ? null : toHex(new Uint8Array((ski.parsedValue as asn1js.OctetString).valueBlock.valueHexView)),
        }
      }),
    )
    const match = parsed.recipients.flatMap((r) => {
      const found = candidates.find((c) =>
        r.subjectKeyId !== null ? c.subjectKeyId === r.subjectKeyId : c.serial === r.serial && c.issuer === toHex(r.issuer!),
      )
      return found === undefined ? [] : [{ recipient: r, key: found.key }]
    })[0]
    if (match === undefined) return yield* new NotAnEnvelopeRecipient()
    const oaep = yield* Effect.try({ try: () => oaepHashOf(match.recipient.algorithm), catch: () => refuse(MALFORMED) })
    if (typeof oaep === "string") return yield* refuse(oaep)
    const cipher = CIPHERS[parsed.cipherOid]
    if (cipher === undefined || (cipher.mode === "AES-GCM") !== parsed.authenticated) {
      return yield* refuse(`content encryption ${parsed.cipherOid} is not supported: AuthEnvelopedData with AES-GCM or EnvelopedData with AES-CBC`)
    }
    const params = yield* Effect.try({
      try: () => {
        const p = must(parsed.cipherParams)
        if (cipher.mode === "AES-CBC") return { iv: octets(must(p instanceof asn1js.OctetString && p)), tagBytes: 0 }
        const [nonce, icv] = children(p)
        const tagBytes = icv === undefined ? 12 : must(icv instanceof asn1js.Integer && (icv as asn1js.Integer).valueBlock.valueDec)
        must(tagBytes >= 12 && tagBytes <= 16)
        return { iv: octets(must(nonce instanceof asn1js.OctetString && nonce)), tagBytes }
      },
      catch: () => refuse(MALFORMED),
    })
    const store = yield* KeyStore
    const cek = yield* store.decrypt(match.key.keyId, match.recipient.encryptedKey, oaep.hash).pipe(Effect.catchAll(() => Effect.fail(refuse(UNDECRYPTABLE))))
    if (cek.length !== cipher.keyBytes || (parsed.mac !== null && parsed.mac.length !== params.tagBytes)) return yield* refuse(UNDECRYPTABLE)
    return yield* Effect.tryPromise({
      try: async () => {
        const key = await subtle().importKey("raw", new Uint8Array(cek), cipher.mode, false, ["decrypt"])
        if (cipher.mode === "AES-CBC")
          return new Uint8Array(await subtle().decrypt({ name: "AES-CBC", iv: new Uint8Array(params.iv) }, key, new Uint8Array(parsed.ciphertext)))
        const data = concatBytes([parsed.ciphertext, parsed.mac!])
        return new Uint8Array(
          await subtle().decrypt(
            {
              name: "AES-GCM",
              iv: new Uint8Array(params.iv),
              tagLength: params.tagBytes * 8,
              ...(parsed.aad === null ? {} : { additionalData: new Uint8Array(parsed.aad) }),
            },
            key,
            data,
          ),
        )
      },
      catch: () => refuse(UNDECRYPTABLE),
    })
  })
