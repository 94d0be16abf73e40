/** Vault port: seals small secrets and documents at rest under keys the database never sees. */
import { Context, type Effect } from "effect"

/** Seals and opens data for a purpose (each purpose has its own key); `aad` binds it to its record. */
export class Vault extends Context.Tag("@signet/core/Vault")<
  Vault,
  {
    /** AES-GCM sealed bytes (nonce included). */
    readonly seal: (plain: Uint8Array, purpose: string, aad: string) => Effect.Effect<Uint8Array>
    /** The plain bytes; a sealed value that was altered, or moved to another record or purpose, is a defect. */
    readonly open: (sealed: Uint8Array, purpose: string, aad: string) => Effect.Effect<Uint8Array>
  }
>() {}
