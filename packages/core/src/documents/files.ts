/**
 * Encrypted-file storage and decryption (`/v2/files*`, `POST /decrypt`, `POST /decrypt/asymmetric`):
 * a document is sealed once as AuthEnvelopedData for its owner and the users it is shared with,
 * each by their encryption certificate; only a recipient's KeyStore key opens it.
 */
import { auditEvent } from "../authorization/audit.ts"
import { requireStepUp } from "../authorization/step-up.ts"
import { Clock, Effect, Option } from "effect"
import { InvalidRequest, PayloadTooLarge, ResourceNotFound } from "../kernel/errors.ts"
import type { User } from "../identity/model.ts"
import { Certificates } from "../pki/ports.ts"
import { EncryptedFiles } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { Users } from "../identity/ports.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { fromBase64, toBase64 } from "../kernel/encoding.ts"
import { toPem } from "../pki/cms.ts"
import { uuid } from "../ports/random.ts"
import { countRequest } from "../rp/quota.ts"
import { encryptionIdentityFor } from "./encryption-certificate.ts"
import { openEnvelope, sealEnvelope, type EnvelopeKey } from "./enveloped-data.ts"
import type { EncryptedFile } from "./model.ts"

/** Largest document `POST /v2/files` stores, in bytes (413 above). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024
/** Largest EnvelopedData `POST /decrypt/asymmetric` takes, in bytes (413 above). */
export const MAX_ENVELOPE_BYTES = MAX_FILE_BYTES + 64 * 1024
/** Most users a file is addressed to, the owner included. */
export const MAX_FILE_RECIPIENTS = 20
/** `POST /decrypt`: requests per minute per user (interface spec). */
export const DECRYPT_PER_MINUTE = 30
/** `POST /decrypt/asymmetric`: requests per minute per user (interface spec). */
export const DECRYPT_ASYMMETRIC_PER_MINUTE = 20

const iso = (ms: number) => new Date(ms).toISOString()

const userById = (userId: string) =>
  Effect.flatMap(Users, (u) => u.findById(userId)).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ what: "User" })),
        onSome: Effect.succeed,
      }),
    ),
  )

/** A user's encryption certificate as the API shows it, issuing it on first use. */
export const encryptionCertificateOf = (user: User) =>
  Effect.gen(function* () {
    const identity = yield* encryptionIdentityFor(user)
    const c = identity.certificate
    return {
      userId: user.id,
      serial: c.serial,
      subject: c.subject,
      notBefore: iso(c.notBefore),
      notAfter: iso(c.notAfter),
      pem: toPem(fromBase64(c.der)!),
      chainPem: identity.chain.map((ca) => toPem(fromBase64(ca.der)!)),
    }
  })

/** `GET /v2/encryption-certificate`: the caller's own. */
export const ownEncryptionCertificate = (user: BearerUser) => Effect.flatMap(userById(user.userId), encryptionCertificateOf)

/** `GET /v2/users/{userId}/encryption-certificate`: another user's, to encrypt for them (404 for an unknown id). */
export const recipientEncryptionCertificate = (userId: string) => Effect.flatMap(userById(userId), encryptionCertificateOf)

/** Metadata of a stored file, as the API shows it. */
export const fileView = (f: EncryptedFile) => ({
  id: f.id,
  name: f.name,
  size: f.size,
  owner: f.ownerUserId,
  recipients: f.recipients,
  createdAt: iso(f.createdAt),
})

const NAME_MAX = 255

/** `POST /v2/files`: encrypts `content` (base64) for the caller and `recipients` (user ids) and stores it. */
export const storeFile = (
  user: BearerUser,
  input: { readonly name: string; readonly content: string; readonly recipients?: ReadonlyArray<string> | undefined },
) =>
  Effect.gen(function* () {
    const name = input.name.trim()
    if (name.length === 0 || name.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
      return yield* new InvalidRequest({ detail: `name must be 1 to ${NAME_MAX} characters without control characters` })
    }
    const plain = fromBase64(input.content)
    if (plain === undefined) return yield* new InvalidRequest({ detail: "content must be base64" })
    if (plain.length > MAX_FILE_BYTES) return yield* new PayloadTooLarge({ limit: MAX_FILE_BYTES })
    const ids = [...new Set([user.userId, ...(input.recipients ?? [])])]
    if (ids.length > MAX_FILE_RECIPIENTS)
      return yield* new InvalidRequest({ detail: `a file has at most ${MAX_FILE_RECIPIENTS} recipients, the owner included` })
    const users = yield* Effect.forEach(ids, (id) =>
      userById(id).pipe(Effect.catchTag("ResourceNotFound", () => Effect.fail(new InvalidRequest({ detail: `recipient ${id} is not a user` })))),
    )
    const certificates = yield* Effect.forEach(users, (u) => Effect.map(encryptionIdentityFor(u), (i) => fromBase64(i.certificate.der)!))
    const envelope = yield* sealEnvelope(plain, certificates)
    const file: EncryptedFile = {
      id: yield* uuid,
      ownerUserId: user.userId,
      name,
      size: plain.length,
      recipients: ids,
      envelope: toBase64(envelope),
      createdAt: yield* Clock.currentTimeMillis,
    }
    yield* Effect.flatMap(Storage, (s) => s.transaction(Effect.flatMap(EncryptedFiles, (f) => f.insert(file)))).pipe(Effect.orDie)
    return fileView(file)
  })

/** `GET /v2/files`: files the caller owns or can decrypt, newest first (at most 500). */
export const listFiles = (user: BearerUser) =>
  Effect.flatMap(EncryptedFiles, (f) => f.listForUser(user.userId, 500)).pipe(Effect.map((list) => list.map(fileView)))

/** A file the caller owns or is a recipient of; 404 `File not found` for anyone else (its existence is not told). */
const visibleFile = (user: BearerUser, fileId: string) =>
  Effect.flatMap(EncryptedFiles, (f) => f.findById(fileId)).pipe(
    Effect.flatMap((found) =>
      Option.isSome(found) && (found.value.ownerUserId === user.userId || found.value.recipients.includes(user.userId))
        ? Effect.succeed(found.value)
        : Effect.fail(new ResourceNotFound({ what: "File" })),
    ),
  )

/** `GET /v2/files/{id}`: metadata and the EnvelopedData (base64 DER). */
export const getFile = (user: BearerUser, fileId: string) => Effect.map(visibleFile(user, fileId), (f) => ({ ...fileView(f), envelopedData: f.envelope }))

/** `DELETE /v2/files/{id}`: the owner removes a file; a recipient cannot (404 for anyone but the owner). */
export const deleteFile = (user: BearerUser, fileId: string) =>
  Effect.gen(function* () {
    const file = yield* visibleFile(user, fileId)
    if (file.ownerUserId !== user.userId) return yield* new ResourceNotFound({ what: "File" })
    yield* Effect.flatMap(Storage, (s) => s.transaction(Effect.flatMap(EncryptedFiles, (f) => f.remove(file.id))))
    return { deleted: true as const }
  })

/** Every encryption key the user ever had (a revoked or expired certificate still opens what was sealed to it). */
const envelopeKeysOf = (userId: string): Effect.Effect<ReadonlyArray<EnvelopeKey>, never, Certificates> =>
  Effect.flatMap(Certificates, (c) => c.listByUser(userId)).pipe(
    Effect.map((list) => list.filter((c) => c.kind === "encryption").map((c) => ({ certificate: fromBase64(c.der)!, keyId: c.keyId }))),
  )

/**
 * `POST /decrypt` (30 per minute per user): the plaintext of a stored file the caller is a
 * recipient of, after a fresh passkey approval (`stepUp`) of this user through this client.
 */
export const decryptFile = (user: BearerUser, fileId: string, stepUp?: string | null) =>
  Effect.gen(function* () {
    yield* countRequest(`decrypt:${user.userId}`, DECRYPT_PER_MINUTE)
    const file = yield* visibleFile(user, fileId)
    if (!file.recipients.includes(user.userId)) return yield* new ResourceNotFound({ what: "File" })
    yield* requireStepUp(user, "decrypt", stepUp)
    yield* auditEvent(user, "file.decrypted", file.id, {})
    const plain = yield* openEnvelope(fromBase64(file.envelope)!, yield* envelopeKeysOf(user.userId))
    return { fileId: file.id, name: file.name, size: plain.length, content: toBase64(plain) }
  })

/** `POST /decrypt/asymmetric` (20 per minute per user): the plaintext of an EnvelopedData addressed to the caller's encryption key. */
export const decryptEnvelope = (user: BearerUser, envelopedData: string, stepUp?: string | null) =>
  Effect.gen(function* () {
    yield* countRequest(`decrypt-asymmetric:${user.userId}`, DECRYPT_ASYMMETRIC_PER_MINUTE)
    yield* requireStepUp(user, "decrypt", stepUp)
    const der = fromBase64(envelopedData.replace(/\s+/g, ""))
    if (der === undefined || der.length === 0) return yield* new InvalidRequest({ detail: "envelopedData must be base64 of a DER or BER CMS ContentInfo" })
    if (der.length > MAX_ENVELOPE_BYTES) return yield* new PayloadTooLarge({ limit: MAX_ENVELOPE_BYTES })
    const plain = yield* openEnvelope(der, yield* envelopeKeysOf(user.userId))
    return { size: plain.length, content: toBase64(plain) }
  })
