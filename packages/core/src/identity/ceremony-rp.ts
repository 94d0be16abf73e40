/** Which WebAuthn relying party (RP id and origins) a ceremony runs for. */
import { Effect } from "effect"
import { EngineConfig, engineRpIdOf } from "../ports/engine-config.ts"
import { CONSOLE_CLIENT_ID } from "../authorization/model.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"

/** RP id and accepted origins of a ceremony. */
export interface CeremonyRp {
  readonly clientId: string | null
  readonly rpId: string
  readonly rpName: string
  readonly origins: ReadonlyArray<string>
}

/**
 * The engine's own pages run the ceremonies, so its public origin is always accepted; an
 * RP adds its authorised signing origins and its WebAuthn RP id. Without a client id the
 * ceremony is the engine's own (RP id = the engine's host name).
 */
export const ceremonyRpFor = (clientId: string | null) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (clientId === CONSOLE_CLIENT_ID) {
      // Signet's own console: the engine's own pages, RP id and origin.
      return { clientId: CONSOLE_CLIENT_ID, rpId: engineRpIdOf(settings), rpName: "Signet", origins: [settings.publicOrigin] } satisfies CeremonyRp
    }
    if (clientId === null) {
      return { clientId: null, rpId: engineRpIdOf(settings), rpName: "Signet", origins: [settings.publicOrigin] } satisfies CeremonyRp
    }
    const rp = yield* approvedRelyingParty(clientId)
    return {
      clientId: rp.clientId,
      rpId: rp.webauthnRpId,
      rpName: rp.name,
      origins: [settings.publicOrigin, ...rp.signingOrigins.filter((o) => o !== settings.publicOrigin)],
    } satisfies CeremonyRp
  })
