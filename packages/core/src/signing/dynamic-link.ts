/**
 * Dynamic linking: a challenge is the SHA-256 of what is approved — the operation id, the
 * document hash (or a batch's ordered list of ids, hashes and hash algorithms) and a stored
 * random nonce — so an approval of one document can never complete another.
 */
import { Effect } from "effect"
import { sha256 } from "../kernel/digest.ts"
import { fromBase64, toBase64, toBase64Url, utf8 } from "../kernel/encoding.ts"
import type { BatchDocument } from "./model.ts"

/** What a challenge binds. JSON arrays keep the encoding unambiguous (no field can run into the next). */
export type LinkedOperation =
  | { readonly kind: "request"; readonly id: string; readonly documentHash: string; readonly nonce: string }
  | { readonly kind: "batch"; readonly id: string; readonly documents: ReadonlyArray<BatchDocument>; readonly nonce: string }
  | { readonly kind: "ssc"; readonly id: string; readonly documentHash: string; readonly nonce: string }

/** The base64url WebAuthn challenge of an operation; completion recomputes it from the stored facts. */
export const linkedChallenge = (op: LinkedOperation): Effect.Effect<string> => {
  const payload = op.kind === "batch" ? op.documents.map((d) => [d.id, d.hash, d.hash_algo]) : op.documentHash
  return sha256(utf8(JSON.stringify(["signet/dynamic-link/v1", op.kind, op.id, payload, op.nonce]))).pipe(Effect.map(toBase64Url))
}

/**
 * The challenge as the pending answers of `POST /v2/sign/single` and `/v2/sign/batch` show it:
 * standard base64, as the spec says. The bytes are the same; the WebAuthn client data carries them
 * as base64url, as every browser writes them.
 */
export const pendingChallenge = (op: LinkedOperation): Effect.Effect<string> => linkedChallenge(op).pipe(Effect.map((c) => toBase64(fromBase64(c)!)))
