/** Storage conformance of the identity-providers module: external identity providers, sign-ins in flight, links and link offers. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ExternalLogins, IdentityLinks, IdentityProviders, LinkOffers } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The identity-providers module's repositories against the storage contract. */
export const identityProvidersConformance = conformanceSuite<IdentityProviders | ExternalLogins | IdentityLinks | LinkOffers>()(
  "identity-providers",
  ({ test, uniqueViolation }) => {
    describe("Identity providers", () => {
      const provider = {
        id: "idp_0001",
        ownerClientId: null,
        name: "Example ID",
        issuer: "https://id.example",
        clientId: "signet",
        clientSecretSealed: "c2VhbGVk",
        scopes: ["openid", "email"],
        authorizationEndpoint: "https://id.example/auth",
        tokenEndpoint: "https://id.example/token",
        jwksUri: "https://id.example/jwks",
        userinfoEndpoint: null,
        createdAt: FAR_FUTURE_MS,
      }
      const login = {
        id: "a".repeat(64),
        providerId: "idp_0001",
        nonce: "n",
        codeVerifier: "v".repeat(43),
        browserBindingHash: "b".repeat(64),
        returnTo: "/api/",
        linkUserId: null,
        clientId: null,
        createdAt: FAR_FUTURE_MS,
        expiresAt: FAR_FUTURE_MS + 300_000,
        consumedAt: null,
      }
      const link = {
        id: "link_1",
        userId: "u_0001",
        providerId: "idp_0001",
        issuer: "https://id.example",
        subject: "248289761001",
        email: "ada@example.com",
        createdAt: FAR_FUTURE_MS,
      }
      const offer = {
        id: "offer_1",
        userId: "u_0001",
        providerId: "idp_0001",
        issuer: "https://id.example",
        subject: "s2",
        email: null,
        browserBindingHash: "b".repeat(64),
        returnTo: "/api/x?y=1",
        clientId: "rp_sbx_1",
        createdAt: FAR_FUTURE_MS,
        expiresAt: FAR_FUTURE_MS + 300_000,
        consumedAt: null,
      }

      test("providers round-trip, list oldest first, and remove answers whether one was there", () =>
        Effect.gen(function* () {
          const providers = yield* IdentityProviders
          const rpOwned = { ...provider, id: "idp_0002", ownerClientId: "rp_sbx_1", userinfoEndpoint: "https://id.example/me", createdAt: FAR_FUTURE_MS + 1 }
          yield* providers.insert(rpOwned)
          yield* providers.insert(provider)
          expect(yield* providers.findById("idp_0002")).toEqual(Option.some(rpOwned))
          expect(yield* providers.list()).toEqual([provider, rpOwned])
          expect((yield* uniqueViolation(providers.insert(provider))).what).toBe("identity provider id")
          expect(yield* providers.remove("idp_0001")).toBe(true)
          expect(yield* providers.remove("idp_0001")).toBe(false)
          expect(yield* providers.list()).toEqual([rpOwned])
        }))

      test("an external login is consumed exactly once, even by concurrent callbacks", () =>
        Effect.gen(function* () {
          const logins = yield* ExternalLogins
          yield* logins.insert(login)
          const outcomes = yield* Effect.all(
            Array.from({ length: 5 }, () => logins.consume(login.id, FAR_FUTURE_MS + 1)),
            { concurrency: "unbounded" },
          )
          expect(outcomes.filter(Option.isSome)).toEqual([Option.some({ ...login, consumedAt: FAR_FUTURE_MS + 1 })])
          expect(yield* logins.consume("unknown", FAR_FUTURE_MS)).toEqual(Option.none())
          yield* logins.insert({ ...login, id: "b".repeat(64), expiresAt: 10 })
          expect(yield* logins.purgeExpired(FAR_FUTURE_MS)).toBe(1)
          expect(yield* logins.consume("b".repeat(64), FAR_FUTURE_MS)).toEqual(Option.none())
        }))

      test("an external identity links to one account only; links list per user and are removed only by their user", () =>
        Effect.gen(function* () {
          const links = yield* IdentityLinks
          yield* links.insert(link)
          expect(yield* links.findByIdentity(link.issuer, link.subject)).toEqual(Option.some(link))
          expect(yield* links.findByIdentity("https://other.example", link.subject)).toEqual(Option.none())
          expect((yield* uniqueViolation(links.insert({ ...link, id: "link_2", userId: "u_0002" }))).what).toBe("external identity")
          const second = { ...link, id: "link_3", subject: "other-sub", email: null, createdAt: FAR_FUTURE_MS + 1 }
          yield* links.insert(second)
          expect(yield* links.listByUser("u_0001")).toEqual([link, second])
          expect(yield* links.remove("link_1", "u_0002")).toBe(false)
          expect(yield* links.remove("link_1", "u_0001")).toBe(true)
          expect(yield* links.listByUser("u_0001")).toEqual([second])
        }))

      test("a link offer round-trips and is consumed once", () =>
        Effect.gen(function* () {
          const offers = yield* LinkOffers
          yield* offers.insert(offer)
          expect(yield* offers.findById("offer_1")).toEqual(Option.some(offer))
          expect(yield* offers.consume("offer_1", FAR_FUTURE_MS + 2)).toEqual(Option.some({ ...offer, consumedAt: FAR_FUTURE_MS + 2 }))
          expect(yield* offers.consume("offer_1", FAR_FUTURE_MS + 3)).toEqual(Option.none())
          expect(yield* offers.findById("offer_1")).toEqual(Option.some({ ...offer, consumedAt: FAR_FUTURE_MS + 2 }))
          expect(yield* offers.purgeExpired(FAR_FUTURE_MS + 300_000)).toBe(0)
          expect(yield* offers.purgeExpired(FAR_FUTURE_MS + 300_001)).toBe(1)
          expect(yield* offers.findById("offer_1")).toEqual(Option.none())
        }))
    })
  },
)
