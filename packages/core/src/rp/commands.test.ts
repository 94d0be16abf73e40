import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyRpCommand, isOrigin, isRedirectUri, type RpCommand } from "./commands.ts"
import type { RelyingParty, RpStatus } from "./model.ts"

const base: RelyingParty = {
  id: 1,
  clientId: "rp_sbx_test",
  name: "Test",
  environment: "sandbox",
  clientSecretHash: "00",
  sscSecretHash: "00",
  status: "pending",
  maxLoa: "LOA-2",
  kycVerified: false,
  signingOrigins: [],
  webauthnRpId: "localhost",
  plan: null,
  customAllowance: null,
  contactUserId: null,
  redirectUris: [],
  postLogoutRedirectUris: [],
  requestedPlan: null,
  idTokenSignedResponseAlg: "RS256",
  retiredClientSecret: null,
  retiredSscSecret: null,
  createdAt: 0,
  updatedAt: 0,
}

const origin = fc.oneof(
  fc.domain().map((d) => `https://${d.toLowerCase()}`),
  fc.constantFrom("not an origin", "https://x.example/p", "ftp://x.example"),
)
const redirectUri = fc.oneof(
  fc.domain().map((d) => `https://${d.toLowerCase()}/callback`),
  fc.constantFrom(
    "http://localhost:8080/cb",
    "http://127.0.0.1/cb",
    "http://app.example/cb",
    "https://app.example/cb#frag",
    "/relative",
    "javascript:alert(1)",
  ),
)
const command: fc.Arbitrary<RpCommand> = fc.oneof(
  fc.constantFrom<RpCommand>({ _tag: "Approve" }, { _tag: "Reject" }, { _tag: "Suspend" }),
  fc.constantFrom("starter" as const, "business" as const, "enterprise" as const, null).map((plan): RpCommand => ({ _tag: "SetPlan", plan })),
  fc.constantFrom("LOA-2" as const, "LOA-4" as const).map((loa): RpCommand => ({ _tag: "SetMaxLoa", loa })),
  fc.boolean().map((kycVerified): RpCommand => ({ _tag: "SetKycVerified", kycVerified })),
  fc.array(origin, { maxLength: 3 }).map((origins): RpCommand => ({ _tag: "SetSigningOrigins", origins })),
  fc.array(redirectUri, { maxLength: 3 }).map((uris): RpCommand => ({ _tag: "SetRedirectUris", uris })),
)

// The model: the approval table written out as plainly as possible.
const allowed: Record<RpStatus, Partial<Record<string, RpStatus>>> = {
  pending: { Approve: "approved", Reject: "rejected" },
  approved: { Suspend: "suspended" },
  suspended: { Approve: "approved" },
  rejected: { Approve: "approved" },
}

describe("RP state machine", () => {
  it("follows the approval table for any command sequence, and settings commands never change the status", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        let rp = base
        let model = { status: base.status as RpStatus, origins: [] as ReadonlyArray<string>, uris: [] as ReadonlyArray<string> }
        commands.forEach((c, i) => {
          const at = 1000 + i
          const result = applyRpCommand(rp, c, at)
          if (c._tag === "Approve" || c._tag === "Reject" || c._tag === "Suspend") {
            const next = allowed[model.status][c._tag]
            expect(Either.isRight(result)).toBe(next !== undefined)
            if (Either.isLeft(result)) expect(result.left._tag).toBe("RpTransitionNotAllowed")
            if (next !== undefined) model = { ...model, status: next }
          } else if (c._tag === "SetSigningOrigins") {
            const valid = c.origins.every(isOrigin)
            expect(Either.isRight(result)).toBe(valid)
            if (valid) model = { ...model, origins: [...new Set(c.origins)] }
          } else if (c._tag === "SetRedirectUris") {
            const valid = c.uris.every(isRedirectUri)
            expect(Either.isRight(result)).toBe(valid)
            if (Either.isLeft(result)) expect(result.left.message).toMatch(/^redirect URI .* must be an absolute https URL/)
            if (valid) model = { ...model, uris: [...new Set(c.uris)] }
          } else {
            expect(Either.isRight(result)).toBe(true)
          }
          if (Either.isRight(result)) {
            expect(result.right.rp.updatedAt).toBe(at)
            expect(result.right.events.length).toBe(1)
            rp = result.right.rp
          }
          expect(rp.status).toBe(model.status)
          expect(rp.signingOrigins).toEqual(model.origins)
          expect(rp.redirectUris).toEqual(model.uris)
          expect(rp.clientSecretHash).toBe(base.clientSecretHash)
        })
      }),
    )
  })

  it("accepts https redirect URIs and plain http only to loopback hosts, never with a fragment", () => {
    expect(["https://rp.example/cb?x=1", "http://localhost:3000/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb"].every(isRedirectUri)).toBe(true)
    expect(
      ["http://rp.example/cb", "https://rp.example/cb#x", "rp.example/cb", "https://user:pw@rp.example/cb", "javascript:alert(1)"].some(isRedirectUri),
    ).toBe(false)
  })

  it("a status change reports where it came from and where it went", () => {
    const r = applyRpCommand(base, { _tag: "Approve" }, 5)
    expect(Either.getOrThrow(r).events).toEqual([{ _tag: "RpStatusChanged", clientId: "rp_sbx_test", from: "pending", to: "approved" }])
    const bad = applyRpCommand(base, { _tag: "Suspend" }, 5)
    expect(Either.isLeft(bad) && bad.left.message).toBe("RP in status pending cannot be suspended")
  })

  it("redirect and post-logout URIs are kept apart, deduplicated, and must be https (http only for loopback) without fragment or user info", () => {
    const set = Either.getOrThrow(
      applyRpCommand(base, { _tag: "SetRedirectUris", uris: ["https://rp.example/cb", "https://rp.example/cb", "http://127.0.0.1:8080/cb"] }, 7),
    ).rp
    expect(set.redirectUris).toEqual(["https://rp.example/cb", "http://127.0.0.1:8080/cb"])
    expect(set.postLogoutRedirectUris).toEqual([])
    const bye = Either.getOrThrow(applyRpCommand(set, { _tag: "SetPostLogoutRedirectUris", uris: ["https://rp.example/bye"] }, 8)).rp
    expect([bye.redirectUris, bye.postLogoutRedirectUris]).toEqual([set.redirectUris, ["https://rp.example/bye"]])
    for (const bad of ["http://rp.example/cb", "https://rp.example/cb#x", "https://u:p@rp.example/cb", "/cb"]) {
      const r = applyRpCommand(base, { _tag: "SetRedirectUris", uris: [bad] }, 9)
      expect(Either.isLeft(r) && r.left.status, bad).toBe(400)
    }
  })
})
