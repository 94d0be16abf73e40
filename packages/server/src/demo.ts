/** Demo mode: a persistent master key and a demo RP on first start, and what to open or call. */
import { administerRelyingParty, configureKyc, getRelyingParty, registerRelyingParty, type RelyingParty } from "@signet/core"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Engine } from "@signet/adapters-http"

/** The demo's master key: made once, kept beside the demo database (demo only; production passes its own). */
export const demoMasterKey = (database: string): string => {
  const file = join(dirname(database === ":memory:" ? ".signet/x" : database), "demo-master.key")
  if (existsSync(file)) return readFileSync(file, "utf8").trim()
  mkdirSync(dirname(file), { recursive: true })
  const key = randomBytes(32).toString("hex")
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  return key
}

/** The demo RP's credentials as the demo keeps them. */
export interface DemoRp {
  readonly clientId: string
  readonly clientSecret: string
  readonly sscSecret: string
}

/**
 * Creates the demo RP on first start (approved, Business plan, organisation check passed so LOA-4 can be shown, KYC
 * of its customers on with the sandbox providers, the engine's origin and `extraSigningOrigins` as signing origins)
 * and remembers its secrets; on later starts adds any missing origin.
 */
export const ensureDemoRp = async (engine: Engine, database: string, extraSigningOrigins: ReadonlyArray<string> = []): Promise<DemoRp> => {
  const file = join(dirname(database === ":memory:" ? ".signet/x" : database), "demo-rp.json")
  const origins = [...new Set([engine.settings.publicOrigin, ...extraSigningOrigins])]
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoRp
    const existing = await engine.run(
      getRelyingParty(saved.clientId).pipe(
        Effect.map((rp): RelyingParty | undefined => rp),
        Effect.catchAll(() => Effect.succeed(undefined)),
      ),
    )
    if (existing !== undefined) {
      const missing = origins.filter((o) => !existing.signingOrigins.includes(o))
      if (missing.length > 0) {
        await engine.run(administerRelyingParty(saved.clientId, { _tag: "SetSigningOrigins", origins: [...existing.signingOrigins, ...missing] }))
      }
      return saved
    }
  }
  const created = await engine.run(
    registerRelyingParty({
      name: "Demo RP",
      signingOrigins: origins,
      plan: "business",
      maxLoa: "LOA-4",
      status: "approved",
    }),
  )
  // The organisation check (kycVerified: what LOA-4 needs) and KYC of the RP's customers are two things; the demo has both.
  await engine.run(administerRelyingParty(created.rp.clientId, { _tag: "SetKycVerified", kycVerified: true }))
  await engine.run(configureKyc(created.rp.clientId, { enabled: true }))
  const demo = { clientId: created.rp.clientId, clientSecret: created.clientSecret, sscSecret: created.sscSecret }
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return demo
}

/**
 * The demo's handler: the first account enrolled becomes the demo RP's contact, so a newcomer
 * can manage its webhooks and see its usage with the token they get by signing in.
 */
export const withDemoContact =
  (engine: Engine, clientId: string) =>
  async (request: Request): Promise<Response> => {
    const response = await engine.handler(request)
    if (request.method === "POST" && response.status === 200 && new URL(request.url).pathname.endsWith("/enrolment/verify")) {
      const { userId } = (await response.clone().json()) as { userId: string }
      const rp = await engine.run(getRelyingParty(clientId))
      if (rp.contactUserId === null) await engine.run(administerRelyingParty(clientId, { _tag: "SetContact", userId }))
    }
    return response
  }
