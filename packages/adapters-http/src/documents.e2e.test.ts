/**
 * Documents over HTTP, checked by tools no one here wrote: files the engine encrypts open with
 * `openssl cms -decrypt`, envelopes `openssl cms -encrypt` makes open with `/decrypt/asymmetric`;
 * decryption is for recipients only and rate limited; signature images are real PNGs (decoded
 * here with node's zlib, not the engine's reader).
 */
import { Certificates, KeyRecords, RelyingParties } from "@signet/core"
import { crc32, enrol, ok, pngFile, signIn, signInAtConsole, SoftwarePasskey, stepUp, type TokenAnswer } from "@signet/testkit"
import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { createHash, randomBytes, webcrypto } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { inflateSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"
import { freshMinuteWindow } from "./test-support/minute-window.ts"

const run = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), "signet-documents-"))
const file = (name: string) => join(work, name)

/** `token`: issued to Signet's console (scope `files`); `rpToken`: issued to the test RP (`openid basic`), for signing. */
interface Person {
  userId: string
  token: string
  rpToken: string
  passkey: SoftwarePasskey
}
interface EncryptionCertificate {
  userId: string
  serial: string
  pem: string
  chainPem: Array<string>
}
interface FileMetadata {
  id: string
  name: string
  size: number
  owner: string
  recipients: Array<string>
  createdAt: string
}

// ---- an independent PNG writer and reader (node:zlib), to check the engine against ----
/** An 8-bit RGB PNG, filter 0, drawn by `pixel`. */
const makePng = (width: number, height: number, pixel: (x: number, y: number) => [number, number, number]) => {
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (width * 3 + 1) + 1 + x * 3)
  return Buffer.from(pngFile({ width, height, depth: 8, colour: 2 }, raw))
}
/** Reads an 8-bit RGBA, non-interlaced PNG (what the engine writes), checking every CRC. */
const readPng = (png: Buffer) => {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  let at = 8
  let width = 0,
    height = 0
  const idat: Array<Buffer> = []
  for (;;) {
    const length = png.readUInt32BE(at)
    const type = png.toString("latin1", at + 4, at + 8)
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)))
    if (type === "IHDR") {
      width = png.readUInt32BE(at + 8)
      height = png.readUInt32BE(at + 12)
      expect([...png.subarray(at + 16, at + 21)]).toEqual([8, 6, 0, 0, 0])
    }
    if (type === "IDAT") idat.push(png.subarray(at + 8, at + 8 + length))
    at += 12 + length
    if (type === "IEND") break
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * 4
  expect(raw.length).toBe((stride + 1) * height)
  const rgba = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!
    for (let x = 0; x < stride; x++) {
      const a = x >= 4 ? rgba[y * stride + x - 4]! : 0,
        b = y > 0 ? rgba[(y - 1) * stride + x]! : 0,
        c = x >= 4 && y > 0 ? rgba[(y - 1) * stride + x - 4]! : 0
      const p = a + b - c,
        pa = Math.abs(p - a),
        pb = Math.abs(p - b),
        pc = Math.abs(p - c)
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f]!
      rgba[y * stride + x] = (raw[y * (stride + 1) + 1 + x]! + pred) & 0xff
    }
  }
  return { width, height, rgba }
}

describe("documents", () => {
  let env: RunningEngine
  const masterKey = webcrypto.getRandomValues(new Uint8Array(32))
  let alice: Person, bob: Person, carol: Person, dave: Person

  const person = async (email: string, displayName: string): Promise<Person> => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email, displayName })
    const rpToken = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    return { userId: enrolled.userId, token: await signInAtConsole(env.client, passkey), rpToken, passkey }
  }
  const auth = (p: Person) => ({ authorization: `Bearer ${p.token}` })
  const rpAuth = (p: Person) => ({ authorization: `Bearer ${p.rpToken}` })
  // Decryption needs a fresh passkey approval each time (docs/authorization.md#step-up): the caller gives one.
  const call = async <T>(p: Person, method: string, path: string, body?: unknown) => {
    const proof = path.startsWith("/decrypt") ? { "signet-step-up": await stepUp(env.client, p.passkey, p.token, "decrypt") } : {}
    return env.client.raw<T>(method as "GET", path, { headers: { ...auth(p), ...proof }, ...(body === undefined ? {} : { body }) })
  }

  beforeAll(async () => {
    env = await startEngine({ masterKey })
    alice = await person("alice@example.com", "Alice Archer")
    bob = await person("bob@example.com", "Bob Baker")
    carol = await person("carol@example.com", "Carol Stranger")
    dave = await person("dave@example.com", "Dave Contact")
  })
  afterAll(async () => env?.stop())

  /** The user's encryption certificate (PEM) written to a file. */
  const certificateFile = async (p: Person) => {
    const certificate = ok(await call<EncryptionCertificate>(p, "GET", "/v2/encryption-certificate"))
    const path = file(`${p.userId}.crt.pem`)
    writeFileSync(path, certificate.pem)
    return { certificate, path }
  }

  /** Test-only export of a user's encryption private key from the software KeyStore (unsealed with the master key). */
  const exportPrivateKey = async (p: Person, serial: string) => {
    const keyId = await env.engine.run(Effect.flatMap(Certificates, (c) => c.findBySerial(serial)).pipe(Effect.map((c) => Option.getOrThrow(c).keyId)))
    const stored = await env.engine.run(Effect.flatMap(KeyRecords, (r) => r.findById(keyId)).pipe(Effect.map(Option.getOrThrow)))
    const sealed = Buffer.from(stored.encryptedPrivateKey, "base64")
    const key = await webcrypto.subtle.importKey("raw", masterKey, "AES-GCM", false, ["decrypt"])
    const pkcs8 = Buffer.from(
      await webcrypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.subarray(0, 12), additionalData: Buffer.from(keyId) }, key, sealed.subarray(12)),
    )
    const path = file(`${p.userId}.key.pem`)
    writeFileSync(path, `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END PRIVATE KEY-----\n`)
    return path
  }

  /** `openssl cms -encrypt` of `plain` to a certificate file; base64 DER. */
  const opensslEncrypt = async (plain: Buffer, certificatePath: string, options: ReadonlyArray<string>, cipher = "-aes-256-gcm") => {
    const id = randomBytes(6).toString("hex")
    writeFileSync(file(`${id}.bin`), plain)
    await run("openssl", [
      "cms",
      "-encrypt",
      "-binary",
      cipher,
      "-in",
      file(`${id}.bin`),
      "-outform",
      "DER",
      "-out",
      file(`${id}.der`),
      "-recip",
      certificatePath,
      ...options,
    ])
    return readFileSync(file(`${id}.der`)).toString("base64")
  }
  const OAEP_SHA256 = ["-keyopt", "rsa_padding_mode:oaep", "-keyopt", "rsa_oaep_md:sha256"]

  it("issues each user an RSA key-transport encryption certificate from the engine's CA, also fetchable by others", async () => {
    const { certificate, path } = await certificateFile(alice)
    expect(certificate.userId).toBe(alice.userId)
    const text = (await run("openssl", ["x509", "-in", path, "-noout", "-text"])).stdout
    expect(text).toMatch(/Public-Key: \(2048 bit\)/)
    expect(text).toMatch(/Key Encipherment/)
    expect(text).toContain("CN = alice@example.com")
    const root = ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem
    writeFileSync(file("chain.pem"), certificate.chainPem[0]! + root)
    const verified = await run("openssl", ["verify", "-CAfile", file("chain.pem"), path])
    expect(verified.stdout).toContain(": OK")
    // stable, and the same one another user sees
    expect(ok(await call<EncryptionCertificate>(alice, "GET", "/v2/encryption-certificate")).serial).toBe(certificate.serial)
    expect(ok(await call<EncryptionCertificate>(bob, "GET", `/v2/users/${alice.userId}/encryption-certificate`)).serial).toBe(certificate.serial)
    const unknown = await call(bob, "GET", `/v2/users/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/encryption-certificate`)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: "User not found" })
  })

  it("a file the engine encrypts for two users decrypts with openssl cms -decrypt (AuthEnvelopedData, AES-256-GCM) and with POST /decrypt", async () => {
    const plain = randomBytes(50_000)
    const stored = ok(
      await call<FileMetadata>(alice, "POST", "/v2/files", { name: "contract.pdf", content: plain.toString("base64"), recipients: [bob.userId] }),
    )
    expect(stored).toMatchObject({ name: "contract.pdf", size: plain.length, owner: alice.userId, recipients: [alice.userId, bob.userId] })

    const fetched = ok(await call<FileMetadata & { envelopedData: string }>(bob, "GET", `/v2/files/${stored.id}`))
    writeFileSync(file("stored.der"), Buffer.from(fetched.envelopedData, "base64"))
    const printed = (await run("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", file("stored.der")])).stdout
    expect(printed).toContain("id-smime-ct-authEnvelopedData")
    expect(printed).toContain("aes-256-gcm")
    expect(printed).toContain("rsaesOaep")

    for (const p of [alice, bob]) {
      const { certificate, path } = await certificateFile(p)
      const key = await exportPrivateKey(p, certificate.serial)
      await run("openssl", ["cms", "-decrypt", "-inform", "DER", "-in", file("stored.der"), "-inkey", key, "-recip", path, "-out", file(`out-${p.userId}.bin`)])
      expect(readFileSync(file(`out-${p.userId}.bin`)).equals(plain)).toBe(true)
      const decrypted = ok(await call<{ fileId: string; name: string; size: number; content: string }>(p, "POST", "/decrypt", { fileId: stored.id }))
      expect(decrypted).toMatchObject({ fileId: stored.id, name: "contract.pdf", size: plain.length })
      expect(Buffer.from(decrypted.content, "base64").equals(plain)).toBe(true)
    }
    expect(ok(await call<Array<FileMetadata>>(bob, "GET", "/v2/files")).map((f) => f.id)).toContain(stored.id)
    // the same envelope as application/pkcs7-mime
    const mime = await fetch(`${env.client.baseUrl}/v2/files/${stored.id}`, { headers: { ...auth(bob), accept: "application/pkcs7-mime" } })
    expect(mime.headers.get("content-type")).toMatch(/^application\/pkcs7-mime; smime-type=authEnveloped-data/)
    expect(Buffer.from(await mime.arrayBuffer()).equals(Buffer.from(fetched.envelopedData, "base64"))).toBe(true)
  })

  it("a non-recipient can neither see nor decrypt a file (404), and only the owner deletes it", async () => {
    const stored = ok(await call<FileMetadata>(alice, "POST", "/v2/files", { name: "secret.txt", content: Buffer.from("for alice only").toString("base64") }))
    for (const [method, path, body] of [
      ["POST", "/decrypt", { fileId: stored.id }],
      ["GET", `/v2/files/${stored.id}`, undefined],
    ] as const) {
      const refused = await call(carol, method, path, body)
      expect(refused.status).toBe(404)
      expect(refused.body).toEqual({ error: "File not found" })
    }
    expect(ok(await call<Array<FileMetadata>>(carol, "GET", "/v2/files")).map((f) => f.id)).not.toContain(stored.id)
    // the owner's stored envelope handed in directly is not addressed to carol either
    const envelope = ok(await call<{ envelopedData: string }>(alice, "GET", `/v2/files/${stored.id}`)).envelopedData
    const foreign = await call(carol, "POST", "/decrypt/asymmetric", { envelopedData: envelope })
    expect(foreign.status).toBe(403)
    expect(foreign.body).toEqual({ error: "The EnvelopedData is not addressed to your encryption certificate" })
    expect((await call(carol, "DELETE", `/v2/files/${stored.id}`)).status).toBe(404)
    expect(ok(await call(alice, "DELETE", `/v2/files/${stored.id}`))).toEqual({ deleted: true })
    expect((await call(alice, "POST", "/decrypt", { fileId: stored.id })).status).toBe(404)
  })

  it("openssl cms -encrypt to a user's certificate is decrypted by POST /decrypt/asymmetric (GCM and CBC, OAEP SHA-256 and SHA-1, issuer-serial and key-id recipients)", async () => {
    const { path } = await certificateFile(bob)
    const plain = randomBytes(10_000)
    const cases = [
      ["-aes-256-gcm", OAEP_SHA256],
      ["-aes-256-gcm", ["-keyopt", "rsa_padding_mode:oaep"]],
      ["-aes256", OAEP_SHA256],
      // the recipient named by subject key identifier instead of issuer and serial
      ["-aes-256-gcm", [...OAEP_SHA256, "-keyid"]],
    ] as const
    for (const [cipher, options] of cases) {
      const envelopedData = await opensslEncrypt(plain, path, options, cipher)
      const opened = ok(await call<{ size: number; content: string }>(bob, "POST", "/decrypt/asymmetric", { envelopedData }))
      expect(opened.size).toBe(plain.length)
      expect(Buffer.from(opened.content, "base64").equals(plain)).toBe(true)
    }
  })

  it("refuses what it cannot or must not decrypt with clear 4xx answers", async () => {
    const { path } = await certificateFile(bob)
    const expectError = async (p: Person, body: unknown, status: number, pattern: RegExp) => {
      const answer = await call<{ error: string }>(p, "POST", "/decrypt/asymmetric", body)
      expect(answer.status).toBe(status)
      expect((answer.body as { error: string }).error).toMatch(pattern)
    }
    // openssl's RSA default, PKCS#1 v1.5 key transport
    await expectError(bob, { envelopedData: await opensslEncrypt(Buffer.from("x"), path, []) }, 400, /RSAES-PKCS1-v1_5.*RSAES-OAEP/)
    // addressed to bob, handed in by alice
    await expectError(
      alice,
      { envelopedData: await opensslEncrypt(Buffer.from("x"), path, OAEP_SHA256) },
      403,
      /^The EnvelopedData is not addressed to your encryption certificate$/,
    )
    await expectError(bob, { envelopedData: "not base64!" }, 400, /base64/)
    await expectError(bob, { envelopedData: Buffer.from("hello world").toString("base64") }, 400, /not a CMS EnvelopedData/)
    // one byte of the authenticated ciphertext altered
    const der = Buffer.from(await opensslEncrypt(Buffer.alloc(64, 7), path, OAEP_SHA256), "base64")
    der[der.length - 30] = der[der.length - 30]! ^ 1
    await expectError(bob, { envelopedData: der.toString("base64") }, 400, /does not decrypt/)
    const badFile = await call(alice, "POST", "/v2/files", { name: "x", content: "???" })
    expect(badFile.status).toBe(400)
    const unknownRecipient = await call<{ error: string }>(alice, "POST", "/v2/files", { name: "x", content: "AAAA", recipients: ["nobody"] })
    expect(unknownRecipient.body).toEqual({ error: "recipient nobody is not a user" })
  })

  it("refuses a file above the documented size limit with 413", async () => {
    const big = await call(alice, "POST", "/v2/files", { name: "big.bin", content: Buffer.alloc(5 * 1024 * 1024 + 1).toString("base64") })
    expect(big.status).toBe(413)
  })

  /** Waits so that a burst of calls fits in one per-minute window. */
  const freshWindow = () => freshMinuteWindow(20_000)

  it("POST /decrypt allows 30 calls a minute per user: the 31st is 429", async () => {
    const stored = ok(await call<FileMetadata>(dave, "POST", "/v2/files", { name: "n.txt", content: Buffer.from("note").toString("base64") }))
    await freshWindow()
    for (let i = 0; i < 30; i++) expect((await call(dave, "POST", "/decrypt", { fileId: stored.id })).status).toBe(200)
    const limited = await call(dave, "POST", "/decrypt", { fileId: stored.id })
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: "Rate limit exceeded. Please try again later." })
    // another user's allowance is their own
    expect((await call(carol, "POST", "/decrypt", { fileId: stored.id })).status).toBe(404)
  }, 120_000)

  it("POST /decrypt/asymmetric allows 20 calls a minute per user: the 21st is 429", async () => {
    const { path } = await certificateFile(dave)
    const envelopedData = await opensslEncrypt(Buffer.from("note"), path, OAEP_SHA256)
    await freshWindow()
    for (let i = 0; i < 20; i++) expect((await call(dave, "POST", "/decrypt/asymmetric", { envelopedData })).status).toBe(200)
    const limited = await call(dave, "POST", "/decrypt/asymmetric", { envelopedData })
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: "Rate limit exceeded. Please try again later." })
  }, 120_000)

  const signature = makePng(300, 100, (x, y) => (Math.abs(y - 50 - Math.round(30 * Math.sin(x / 20))) < 4 ? [200, 0, 0] : [255, 255, 255]))

  it("sets, reads and deletes the signer's own signature image, and refuses what is not a sane PNG", async () => {
    expect((await call(alice, "GET", "/v2/signature-image")).status).toBe(404)
    const set = ok(await call<{ width: number; height: number; size: number }>(alice, "PUT", "/v2/signature-image", { image: signature.toString("base64") }))
    expect(set).toMatchObject({ width: 300, height: 100, size: signature.length })
    const got = await fetch(`${env.client.baseUrl}/v2/signature-image`, { headers: auth(alice) })
    expect(got.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await got.arrayBuffer()).equals(signature)).toBe(true)
    expect((await call(bob, "GET", "/v2/signature-image")).status).toBe(404)

    const corrupt = Buffer.from(signature)
    corrupt[40] = corrupt[40]! ^ 0xff
    const refusals: Array<[string, Buffer | string, RegExp]> = [
      ["random bytes", randomBytes(500), /^Signature image is not a usable PNG: not a PNG file/],
      ["a flipped byte", corrupt, /^Signature image is not a usable PNG: bad CRC/],
      ["a truncated file", signature.subarray(0, signature.length - 20), /truncated/],
      ["too wide", makePng(1500, 10, () => [0, 0, 0]), /at most 1200×600/],
      ["not base64", "%%%", /base64/],
    ]
    for (const [, image, pattern] of refusals) {
      const answer = await call<{ error: string }>(alice, "PUT", "/v2/signature-image", { image: typeof image === "string" ? image : image.toString("base64") })
      expect(answer.status).toBe(typeof image === "string" ? 400 : 422)
      expect((answer.body as { error: string }).error).toMatch(pattern)
    }
    // the refused images changed nothing
    expect(Buffer.from(await (await fetch(`${env.client.baseUrl}/v2/signature-image`, { headers: auth(alice) })).arrayBuffer()).equals(signature)).toBe(true)

    ok(await call(bob, "PUT", "/v2/signature-image", { image: signature.toString("base64") }))
    expect(ok(await call(bob, "DELETE", "/v2/signature-image"))).toEqual({ deleted: true })
    expect((await call(bob, "GET", "/v2/signature-image")).status).toBe(404)
    expect((await call(bob, "DELETE", "/v2/signature-image")).status).toBe(404)
  })

  const sign = async (p: Person, approve: boolean) => {
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: rpAuth(p),
        body: { documentHash: createHash("sha256").update(randomBytes(32)).digest("hex"), credentialId: p.passkey.credentialId },
      }),
    )
    if (approve) {
      ok(
        await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: p.passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        }),
      )
    }
    return pending.requestId
  }
  const image = async (p: Person, requestId: string) => fetch(`${env.client.baseUrl}/v2/sign/${requestId}/image`, { headers: rpAuth(p) })
  const inked = (png: { width: number; rgba: Buffer }, x0: number, y0: number, x1: number, y1: number, test: (r: number, g: number, b: number) => boolean) => {
    let n = 0
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        const o = (y * png.width + x) * 4
        if (test(png.rgba[o]!, png.rgba[o + 1]!, png.rgba[o + 2]!)) n++
      }
    return n
  }

  it("renders a completed signature as a PNG with the signer's image and text, for the signer and the RP's contact account only", async () => {
    ok(await call(alice, "PUT", "/v2/signature-image", { image: signature.toString("base64") }))
    const requestId = await sign(alice, true)
    const answer = await image(alice, requestId)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe("image/png")
    const png = readPng(Buffer.from(await answer.arrayBuffer()))
    expect(png.width).toBeGreaterThanOrEqual(600)
    expect(png.height).toBeGreaterThanOrEqual(150)
    // the signer's red strokes in the image box on the left, dark text on the right
    expect(inked(png, 0, 0, 300, png.height, (r, g, b) => r > 150 && g < 120 && b < 120)).toBeGreaterThan(300)
    expect(inked(png, 300, 0, png.width, png.height, (r, g, b) => r < 120 && g < 120 && b < 160)).toBeGreaterThan(2000)

    // without a signature image the card still renders, with no red
    const plain = readPng(Buffer.from(await (await image(bob, await sign(bob, true))).arrayBuffer()))
    expect(inked(plain, 0, 0, plain.width, plain.height, (r, g, b) => r > 150 && g < 120 && b < 120)).toBe(0)

    // strangers get 404, as for an unknown id
    const stranger = await image(carol, requestId)
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual({ error: "Signing request not found" })
    expect((await image(carol, "not-a-request")).status).toBe(404)
    // the RP's contact account may fetch it
    await env.engine.run(
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const rp = Option.getOrThrow(yield* rps.findByClientId(env.rp.clientId))
        yield* rps.update({ ...rp, contactUserId: dave.userId })
      }),
    )
    expect((await image(dave, requestId)).status).toBe(200)
    // a request not yet approved has no image
    const pending = await image(alice, await sign(alice, false))
    expect(pending.status).toBe(409)
    expect(await pending.json()).toEqual({ error: "Signing request is not completed" })
  })
})
