import { KeyRecords, KeyStore, UniqueViolation, fromBase64, utf8, type StoredKey } from "@signet/core"
import { Effect, Layer, Option } from "effect"
import { webcrypto } from "node:crypto"
import { describe, expect, it } from "vitest"
import { KeyStoreSoftware, MasterKey, parseMasterKey } from "./key-store-software.ts"

// The one repository the store needs, kept in a Map so the test can look at what is stored.
const recordsIn = (map: Map<string, StoredKey>) =>
  Layer.succeed(KeyRecords, {
    insert: (key) => (map.has(key.keyId) ? Effect.fail(new UniqueViolation({ what: key.keyId })) : Effect.sync(() => void map.set(key.keyId, key))),
    findById: (id) => Effect.sync(() => Option.fromNullable(map.get(id))),
    list: () => Effect.sync(() => [...map.values()]),
  })

const storeWith = (map: Map<string, StoredKey>, master: Uint8Array) =>
  KeyStoreSoftware.pipe(Layer.provide(Layer.merge(recordsIn(map), Layer.succeed(MasterKey, master))))

const run = <A, E>(map: Map<string, StoredKey>, master: Uint8Array, program: Effect.Effect<A, E, KeyStore>) =>
  Effect.runPromise(Effect.provide(program, storeWith(map, master)))

const master = new Uint8Array(32).fill(7)

describe("software KeyStore", () => {
  it("signs ES256 (P1363) that the public JWK verifies", async () => {
    const map = new Map<string, StoredKey>()
    const { info, signature } = await run(
      map,
      master,
      Effect.gen(function* () {
        const store = yield* KeyStore
        const info = yield* store.ensure("k1", "ES256")
        return { info, signature: yield* store.sign("k1", utf8("hello")) }
      }),
    )
    expect(signature.length).toBe(64)
    const pub = await webcrypto.subtle.importKey("jwk", info.publicJwk as JsonWebKey, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"])
    expect(await webcrypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pub, signature, utf8("hello"))).toBe(true)
    expect(await webcrypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pub, signature, utf8("hellO"))).toBe(false)
  })

  it("stores the private key only sealed: no PKCS#8 in the clear, and the master key never", async () => {
    const map = new Map<string, StoredKey>()
    await run(
      map,
      master,
      Effect.flatMap(KeyStore, (s) => s.ensure("k1", "ES256")),
    )
    const stored = map.get("k1")!
    const bytes = fromBase64(stored.encryptedPrivateKey)!
    // a PKCS#8 EC key starts with SEQUENCE 0x30 and carries the P-256 OID 1.2.840.10045.3.1.7
    const oid = Buffer.from("2a8648ce3d030107", "hex")
    expect(Buffer.from(bytes).includes(oid)).toBe(false)
    expect(JSON.stringify(stored)).not.toContain(Buffer.from(master).toString("hex"))
    expect(JSON.stringify(stored)).not.toContain(Buffer.from(master).toString("base64"))
    expect(stored.publicJwk).not.toContain('"d"')
  })

  it("ensure is idempotent and a second store (another node) signs with the same key", async () => {
    const map = new Map<string, StoredKey>()
    const a = await run(
      map,
      master,
      Effect.flatMap(KeyStore, (s) => s.ensure("k1", "ES256")),
    )
    const b = await run(
      map,
      master,
      Effect.flatMap(KeyStore, (s) => s.ensure("k1", "ES256")),
    )
    expect(b.publicJwk).toEqual(a.publicJwk)
    expect(map.size).toBe(1)
  })

  it("a wrong master key cannot use the stored keys, and a sealed key moved to another id does not open", async () => {
    const map = new Map<string, StoredKey>()
    await run(
      map,
      master,
      Effect.flatMap(KeyStore, (s) => s.ensure("k1", "ES256")),
    )
    const wrong = new Uint8Array(32).fill(8)
    await expect(
      run(
        map,
        wrong,
        Effect.flatMap(KeyStore, (s) => s.sign("k1", utf8("x"))),
      ),
    ).rejects.toThrow()
    map.set("k2", { ...map.get("k1")!, keyId: "k2" })
    await expect(
      run(
        map,
        master,
        Effect.flatMap(KeyStore, (s) => s.sign("k2", utf8("x"))),
      ),
    ).rejects.toThrow()
  })

  it("signs RS256 (RSASSA-PKCS1-v1_5, 2048-bit) that the public JWK verifies; the private key is stored only sealed; it decrypts nothing", async () => {
    const map = new Map<string, StoredKey>()
    const { info, signature, decrypting } = await run(
      map,
      master,
      Effect.gen(function* () {
        const store = yield* KeyStore
        const info = yield* store.ensure("rs", "RS256")
        return { info, signature: yield* store.sign("rs", utf8("hello")), decrypting: yield* Effect.flip(store.decrypt("rs", new Uint8Array(256), "SHA-256")) }
      }),
    )
    expect(info).toMatchObject({ algorithm: "RS256", publicJwk: { kty: "RSA", e: "AQAB" } })
    expect(Buffer.from(fromBase64(info.publicJwk.n!)!).length).toBe(256)
    expect(signature.length).toBe(256)
    const pub = await webcrypto.subtle.importKey(
      "jwk",
      { kty: "RSA", n: info.publicJwk.n!, e: info.publicJwk.e! },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["verify"],
    )
    expect(await webcrypto.subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, pub, signature, utf8("hello"))).toBe(true)
    expect(await webcrypto.subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, pub, signature, utf8("hellO"))).toBe(false)
    expect(decrypting._tag).toBe("KeyDecryptionFailed")
    // a PKCS#8 RSA key carries the rsaEncryption OID 1.2.840.113549.1.1.1; sealed, it must not show
    const sealed = Buffer.from(fromBase64(map.get("rs")!.encryptedPrivateKey)!)
    expect(sealed.includes(Buffer.from("2a864886f70d010101", "hex"))).toBe(false)
    expect(map.get("rs")!.publicJwk).not.toContain('"d"')
    // another node (a fresh store over the same records) signs with the same key
    const again = await run(
      map,
      master,
      Effect.flatMap(KeyStore, (s) => s.sign("rs", utf8("hello"))),
    )
    expect(await webcrypto.subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, pub, again, utf8("hello"))).toBe(true)
  })

  it("an unknown key is KeyNotFound", async () => {
    const r = await run(new Map(), master, Effect.flip(Effect.flatMap(KeyStore, (s) => s.sign("nope", utf8("x")))))
    expect(r._tag).toBe("KeyNotFound")
  })

  it("master keys are 32 bytes as hex or base64", () => {
    expect(parseMasterKey("07".repeat(32))).toEqual(master)
    expect(parseMasterKey(Buffer.from(master).toString("base64"))).toEqual(master)
    expect(() => parseMasterKey("abc")).toThrow(/32 bytes/)
    expect(() => parseMasterKey("")).toThrow(/32 bytes/)
  })

  it("holds RSA-OAEP keys that decrypt what their public half wrapped, with the hash asked for, and nothing else", async () => {
    const map = new Map<string, StoredKey>()
    const secret = webcrypto.getRandomValues(new Uint8Array(32))
    const wrap = async (jwk: JsonWebKey, hash: string) => {
      const key = await webcrypto.subtle.importKey("jwk", { kty: jwk.kty, n: jwk.n, e: jwk.e } as JsonWebKey, { name: "RSA-OAEP", hash }, false, ["encrypt"])
      return new Uint8Array(await webcrypto.subtle.encrypt({ name: "RSA-OAEP" }, key, secret))
    }
    const outcome = await run(
      map,
      master,
      Effect.gen(function* () {
        const store = yield* KeyStore
        const info = yield* store.ensure("enc", "RSA-OAEP-2048")
        const jwk = info.publicJwk as JsonWebKey
        const sha256 = yield* Effect.promise(() => wrap(jwk, "SHA-256"))
        const sha1 = yield* Effect.promise(() => wrap(jwk, "SHA-1"))
        yield* store.ensure("sig", "ES256")
        return {
          info,
          sha256: yield* store.decrypt("enc", sha256, "SHA-256"),
          sha1: yield* store.decrypt("enc", sha1, "SHA-1"),
          wrongHash: yield* Effect.flip(store.decrypt("enc", sha256, "SHA-1")),
          signingKey: yield* Effect.flip(store.decrypt("sig", sha256, "SHA-256")),
          unknown: yield* Effect.flip(store.decrypt("nope", sha256, "SHA-256")),
        }
      }),
    )
    expect(outcome.info).toMatchObject({ algorithm: "RSA-OAEP-2048", publicJwk: { kty: "RSA", e: "AQAB" } })
    expect(Buffer.from(fromBase64(outcome.info.publicJwk.n!)!).length).toBe(256)
    expect(outcome.sha256).toEqual(secret)
    expect(outcome.sha1).toEqual(secret)
    expect(outcome.wrongHash._tag).toBe("KeyDecryptionFailed")
    expect(outcome.signingKey._tag).toBe("KeyDecryptionFailed")
    expect(outcome.unknown._tag).toBe("KeyNotFound")
    expect(map.get("enc")!.publicJwk).not.toContain('"d"')
  })
})
