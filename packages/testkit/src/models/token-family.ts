/**
 * Model-based suite of a refresh-token family (the grant one authorization code starts):
 * rotation on every use, reuse detection that revokes the family, code replay, revocation,
 * and whether each access token issued on the way is still accepted.
 */
import { describe, it, beforeAll, afterAll, expect } from "vitest"
import fc from "fast-check"
import { Effect, Option, type Layer, type ManagedRuntime } from "effect"
import { authorize, exchangeCode, refreshTokens, registerRelyingParty, revokeToken, verifyAccessToken, type RelyingParty } from "@signet/core"
import { createHash, randomBytes } from "node:crypto"
import type { StorageTags } from "../storage/conformance.ts"
import { enrolSigner, modelRuntime, outcome, runAt, type ModelRun, type ModelServices } from "./engine.ts"
import { ManualClock } from "./manual-clock.ts"

const ORIGIN = "http://localhost:4000"
const CALLBACK = "https://rp.example/cb"

/** What the model knows: how many tokens the family issued (only the newest refresh token works) and whether the family lives. */
interface Model {
  refreshCount: number
  accessCount: number
  alive: boolean
}
/** The real side: the tokens as issued. */
interface Real {
  run: ModelRun
  rp: RelyingParty
  code: string
  verifier: string
  refresh: Array<string>
  access: Array<string>
}

type Cmd = fc.AsyncCommand<Model, Real>

/** Presents refresh token `i` (of those issued so far), or the newest. */
class Refresh implements Cmd {
  constructor(readonly i: number | "newest") {}
  check = () => true
  async run(m: Model, r: Real) {
    expect(r.refresh).toHaveLength(m.refreshCount)
    const index = this.i === "newest" ? r.refresh.length - 1 : this.i % r.refresh.length
    const result = await outcome(r.run, refreshTokens(r.rp, { refreshToken: r.refresh[index]!, scope: [] }))
    if (m.alive && index === m.refreshCount - 1) {
      expect(result.tag).toBe("ok")
      const tokens = (result as { value: { refresh_token: string; access_token: string } }).value
      r.refresh.push(tokens.refresh_token)
      r.access.push(tokens.access_token)
      m.refreshCount += 1
      m.accessCount += 1
    } else {
      expect(result.tag).toBe("OAuthError")
      // A used token presented again kills the family; one of a dead family changes nothing.
      m.alive = false
    }
  }
  toString = () => `Refresh(${this.i})`
}

/** Exchanges the authorization code again. */
class ReplayCode implements Cmd {
  check = () => true
  async run(m: Model, r: Real) {
    const result = await outcome(r.run, exchangeCode(r.rp, { code: r.code, redirectUri: CALLBACK, codeVerifier: r.verifier }))
    expect(result.tag).toBe("OAuthError")
    m.alive = false
  }
  toString = () => "ReplayCode"
}

/** Revokes refresh token `i` (RFC 7009): the whole family goes. */
class Revoke implements Cmd {
  constructor(readonly i: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    await r.run(revokeToken(r.rp, r.refresh[this.i % r.refresh.length]!, "refresh_token"))
    m.alive = false
  }
  toString = () => `Revoke(${this.i})`
}

/** Every access token of the family is accepted exactly while the family lives. */
class CheckAccess implements Cmd {
  check = () => true
  async run(m: Model, r: Real) {
    expect(r.access).toHaveLength(m.accessCount)
    for (const token of r.access) expect((await outcome(r.run, verifyAccessToken(token))).tag).toBe(m.alive ? "ok" : "InvalidOrExpiredToken")
  }
  toString = () => "CheckAccess"
}

const commands = [
  fc.nat(8).map((i) => new Refresh(i)),
  // The newest token twice as often: families grow before they are attacked.
  fc.constant(new Refresh("newest")),
  fc.constant(new Refresh("newest")),
  fc.constant(new ReplayCode()),
  fc.nat(8).map((i) => new Revoke(i)),
  fc.constant(new CheckAccess()),
]

/** Declares the refresh-token family suite for a storage adapter. */
export const tokenFamilyModel = (name: string, makeStorage: () => Layer.Layer<StorageTags, unknown>, runs = 30): void => {
  describe(`refresh-token families against the model (${name})`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<ModelServices, unknown>
    beforeAll(async () => {
      runtime = modelRuntime(makeStorage, ORIGIN)
      await runtime.runtime()
    })
    afterAll(async () => runtime?.dispose())

    const setup = async (): Promise<Real> => {
      const run = runAt(runtime, new ManualClock(Date.UTC(2026, 10, 25, 12, 0)))
      const rp = await run(registerRelyingParty({ name: "Family RP", status: "approved", redirectUris: [CALLBACK] }))
      const { userId } = await enrolSigner(run, ORIGIN)
      const verifier = randomBytes(32).toString("base64url")
      const query = new URLSearchParams({
        client_id: rp.rp.clientId,
        redirect_uri: CALLBACK,
        response_type: "code",
        scope: "openid basic",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      })
      const signIn = Option.some({ sessionId: "model", userId, authTime: 1, amr: ["hwk", "user"] })
      const decided = await run(authorize(query, signIn, "allow"))
      if (decided._tag !== "Redirect") throw new Error(`expected a redirect, got ${decided._tag}`)
      const code = new URL(decided.location).searchParams.get("code")!
      const tokens = await run(exchangeCode(rp.rp, { code, redirectUri: CALLBACK, codeVerifier: verifier }))
      expect(await run(Effect.map(verifyAccessToken(tokens.access_token), (c) => c.sub))).toBe(userId)
      return { run, rp: rp.rp, code, verifier, refresh: [tokens.refresh_token], access: [tokens.access_token] }
    }

    it("rotation, reuse detection, code replay and revocation match the model", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { size: "+1", maxCommands: 25 }), async (cmds) => {
          const real = await setup()
          await fc.asyncModelRun(() => ({ model: { refreshCount: 1, accessCount: 1, alive: true }, real }), cmds)
        }),
        { numRuns: runs },
      )
    }, 240_000)
  })
}
