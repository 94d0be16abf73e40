/** The signed-in user's own account: who they are and their passkeys. */
import { Effect, Option } from "effect"
import { InvalidOrExpiredToken } from "./errors.ts"
import { Passkeys, Users } from "./ports.ts"
import { authenticateClient } from "../rp/relying-parties.ts"
import { issueAccessToken } from "./access-token.ts"

/** The account behind a bearer token; a token whose user is gone is no longer valid. */
export const describeAccount = (userId: string) =>
  Effect.gen(function* () {
    const user = yield* Effect.flatMap(Users, (u) => u.findById(userId))
    if (Option.isNone(user)) return yield* new InvalidOrExpiredToken()
    const passkeys = yield* Effect.flatMap(Passkeys, (p) => p.listByUser(userId))
    return {
      user: user.value,
      passkeys: passkeys.map((p) => ({
        id: p.id,
        rpId: p.rpId,
        algorithm: p.algorithm,
        backedUp: p.backedUp,
        createdAt: p.createdAt,
        lastUsedAt: p.lastUsedAt,
      })),
    }
  })

/** Scopes an RP backend may ask for with client credentials. */
export const CLIENT_SCOPES: ReadonlyArray<string> = ["basic"]

/** The client-credentials grant: a token for the RP's own backend, with no `sub` (it stands for no user). */
export const issueClientToken = (clientId: string, clientSecret: string, requestedScope: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const rp = yield* authenticateClient(clientId, clientSecret)
    const scope = requestedScope.length === 0 ? CLIENT_SCOPES : requestedScope.filter((s) => CLIENT_SCOPES.includes(s))
    const issued = yield* issueAccessToken({ clientId: rp.clientId, scope })
    return { access_token: issued.token, token_type: "Bearer" as const, expires_in: issued.expiresIn, scope: scope.join(" ") }
  })
