/**
 * What the signing frame shows before a signer approves a `/v2/sign/*` request or batch:
 * the document(s), the challenge and the passkey to use. The id is the capability (a random
 * uuid handed to the signer); the challenge is useless without the signer's passkey.
 */
import { Effect, Option } from "effect"
import { SigningRequestNotFound } from "./errors.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { Batches, SigningRequests } from "./ports.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import { pendingChallenge } from "./dynamic-link.ts"

/** A pending single request, for approval. */
export const viewPendingRequest = (requestId: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const found = yield* Effect.flatMap(SigningRequests, (r) => r.findById(requestId))
    if (Option.isNone(found) || found.value.status !== "pending_auth") return yield* new SigningRequestNotFound()
    const r = found.value
    const rp = yield* approvedRelyingParty(r.clientId)
    return {
      kind: "request" as const,
      id: r.id,
      clientId: rp.clientId,
      rpName: rp.name,
      rpId: rp.webauthnRpId,
      credentialId: r.credentialId,
      challenge: yield* pendingChallenge({ kind: "request", id: r.id, documentHash: r.documentHash, nonce: r.nonce }),
      expiresAt: new Date(r.expiresAt).toISOString(),
      authUrl: `${settings.basePath}/v2/sign/auth/${r.id}`,
      loa: r.loa,
      documents: [{ id: r.id, name: r.documentName, hash: r.documentHash, hash_algo: "2.16.840.1.101.3.4.2.1" }],
    }
  })

/** A pending batch, for approval: every document is listed before the signer approves. */
export const viewPendingBatch = (batchId: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const found = yield* Effect.flatMap(Batches, (b) => b.findById(batchId))
    if (Option.isNone(found) || found.value.status !== "pending_auth") return yield* new SigningRequestNotFound()
    const b = found.value
    const rp = yield* approvedRelyingParty(b.clientId)
    return {
      kind: "batch" as const,
      id: b.id,
      clientId: rp.clientId,
      rpName: rp.name,
      rpId: rp.webauthnRpId,
      credentialId: b.credentialId,
      challenge: yield* pendingChallenge({ kind: "batch", id: b.id, documents: b.documents, nonce: b.nonce }),
      expiresAt: new Date(b.expiresAt).toISOString(),
      authUrl: `${settings.basePath}/v2/sign/batch/${b.id}/auth`,
      loa: "LOA-2" as const,
      documents: b.documents.map((d) => ({ id: d.id, name: null, hash: d.hash, hash_algo: d.hash_algo })),
    }
  })
