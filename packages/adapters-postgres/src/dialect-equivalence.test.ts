/**
 * SQLite and PostgreSQL are one storage: a random sequence of writes and reads gives the
 * same decoded results (values and errors) on both. RP ids are compared by insertion rank,
 * because a PostgreSQL identity skips the values of failed inserts and SQLite does not.
 */
import { expect, it } from "vitest"
import { Cause, Effect, Either, Exit, type Layer, Option } from "effect"
import fc from "fast-check"
import {
  Ceremonies,
  HostedSessions,
  KeyRecords,
  Passkeys,
  RelyingParties,
  Storage,
  UniqueViolation,
  Users,
  type Ceremony,
  type HostedSession,
  type NewRelyingParty,
  type Passkey,
  type RelyingParty,
  type StoredKey,
  type User,
} from "@signet/core"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { describePostgres, findPostgres, type StorageTags, withFreshSchema } from "@signet/testkit/storage"
import { StoragePostgres } from "./index.ts"

// ---------------------------------------------------------------- commands

type Write =
  | { readonly op: "insertRp"; readonly rp: NewRelyingParty }
  | { readonly op: "updateRp"; readonly rank: number; readonly rp: NewRelyingParty }
  | { readonly op: "insertUser"; readonly user: User }
  | { readonly op: "insertPasskey"; readonly passkey: Passkey }
  | { readonly op: "recordUse"; readonly id: string; readonly counter: number; readonly at: number }
  | { readonly op: "insertCeremony"; readonly ceremony: Ceremony }
  | { readonly op: "consume"; readonly id: string; readonly at: number }
  | { readonly op: "insertSession"; readonly session: HostedSession }
  | { readonly op: "insertKey"; readonly key: StoredKey }

type Read =
  | { readonly op: "findRp"; readonly rank: number }
  | { readonly op: "findRpByClientId"; readonly clientId: string }
  | { readonly op: "listRps" }
  | { readonly op: "findUser"; readonly id: string }
  | { readonly op: "findUserByEmail"; readonly email: string }
  | { readonly op: "findPasskey"; readonly id: string }
  | { readonly op: "listPasskeys"; readonly userId: string }
  | { readonly op: "findCeremony"; readonly id: string }
  | { readonly op: "findSession"; readonly id: string }
  | { readonly op: "findKey"; readonly id: string }
  | { readonly op: "listKeys" }

type Command = Write | Read | { readonly op: "transaction"; readonly writes: ReadonlyArray<Write>; readonly fail: boolean; readonly catchErrors: boolean }

// Small pools of keys so that collisions (unique violations, repeated consumes) are frequent.
const clientIds = fc.constantFrom("sbx_a", "sbx_b", "prd_c")
const userIds = fc.constantFrom("usr_1", "usr_2", "usr_3")
const emails = fc.constantFrom("a@x.io", "A@X.io", "b@x.io", "Ünïcödé@x.io", "ünïcödé@X.IO")
const credentialIds = fc.constantFrom("cred_1", "cred_2", "Cred_1")
const ceremonyIds = fc.constantFrom("cer_1", "cer_2")
const sessionIds = fc.constantFrom("hs_1", "hs_2")
const keyIds = fc.constantFrom("key_a", "key_B", "key_b")
const ranks = fc.integer({ min: 0, max: 3 })
// PostgreSQL text cannot hold NUL; everything else must survive both databases.
const text = fc.fullUnicodeString({ maxLength: 12 }).filter((s) => !s.includes("\u0000"))
const ms = fc.oneof(fc.constantFrom(0, 4_102_444_800_000, Number.MAX_SAFE_INTEGER), fc.maxSafeNat())
const smallMs = fc.integer({ min: 0, max: 5 }) // ties in ordering columns
const nullable = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null })
const loa = fc.constantFrom("LOA-2" as const, "LOA-4" as const)

const newRp: fc.Arbitrary<NewRelyingParty> = fc.record({
  clientId: clientIds,
  name: text,
  environment: fc.constantFrom("sandbox" as const, "production" as const),
  clientSecretHash: text,
  sscSecretHash: text,
  status: fc.constantFrom("pending" as const, "approved" as const, "rejected" as const, "suspended" as const),
  maxLoa: loa,
  kycVerified: fc.boolean(),
  signingOrigins: fc.array(text, { maxLength: 3 }),
  webauthnRpId: text,
  plan: nullable(fc.constantFrom("starter" as const, "business" as const, "enterprise" as const)),
  customAllowance: nullable(
    fc.record({
      signaturesPerDay: fc.nat(),
      documentsPerBatch: fc.nat(),
      requestsPerMinute: fc.nat(),
      highestLoa: loa,
    }),
  ),
  contactUserId: nullable(userIds),
  redirectUris: fc.array(text, { maxLength: 2 }),
  postLogoutRedirectUris: fc.array(text, { maxLength: 2 }),
  idTokenSignedResponseAlg: fc.constantFrom("RS256" as const, "ES256" as const),
  requestedPlan: nullable(fc.constantFrom("starter" as const, "business" as const, "enterprise" as const)),
  retiredClientSecret: nullable(fc.record({ hash: text, validUntil: ms })),
  retiredSscSecret: nullable(fc.record({ hash: text, validUntil: ms })),
  createdAt: fc.oneof(smallMs, ms),
  updatedAt: ms,
})

const write: fc.Arbitrary<Write> = fc.oneof(
  newRp.map((rp) => ({ op: "insertRp" as const, rp })),
  fc.record({ rank: ranks, rp: newRp }).map((c) => ({ op: "updateRp" as const, ...c })),
  fc
    .record({ id: userIds, email: emails, displayName: text, createdAt: ms, emailVerifiedAt: nullable(ms) })
    .map((user) => ({ op: "insertUser" as const, user })),
  fc
    .record({
      id: credentialIds,
      userId: userIds,
      publicKey: text,
      algorithm: fc.constantFrom(-7, -257),
      counter: fc.maxSafeNat(),
      rpId: text,
      transports: fc.array(fc.constantFrom("usb", "nfc", "ble", "internal", "hybrid"), { maxLength: 3 }),
      backedUp: fc.boolean(),
      createdAt: smallMs,
      lastUsedAt: nullable(ms),
    })
    .map((passkey) => ({ op: "insertPasskey" as const, passkey })),
  fc.record({ id: credentialIds, counter: fc.maxSafeNat(), at: ms }).map((c) => ({ op: "recordUse" as const, ...c })),
  fc
    .record({
      id: ceremonyIds,
      kind: fc.constantFrom("enrolment" as const, "sign-in" as const),
      challenge: text,
      userId: nullable(userIds),
      email: nullable(emails),
      displayName: nullable(text),
      clientId: nullable(clientIds),
      rpId: text,
      createdAt: ms,
      expiresAt: ms,
      consumedAt: nullable(ms),
      emailVerificationId: nullable(text),
    })
    .map((ceremony) => ({ op: "insertCeremony" as const, ceremony })),
  fc.record({ id: ceremonyIds, at: ms }).map((c) => ({ op: "consume" as const, ...c })),
  fc.record({ id: sessionIds, csrfTokenHash: text, createdAt: ms, expiresAt: ms }).map((session) => ({ op: "insertSession" as const, session })),
  fc
    .record({ keyId: keyIds, algorithm: fc.constantFrom("ES256", "RS256"), publicJwk: text, encryptedPrivateKey: text, createdAt: smallMs })
    .map((key) => ({ op: "insertKey" as const, key })),
)

const read: fc.Arbitrary<Read> = fc.oneof(
  ranks.map((rank) => ({ op: "findRp" as const, rank })),
  clientIds.map((clientId) => ({ op: "findRpByClientId" as const, clientId })),
  fc.constant({ op: "listRps" as const }),
  userIds.map((id) => ({ op: "findUser" as const, id })),
  emails.map((email) => ({ op: "findUserByEmail" as const, email })),
  credentialIds.map((id) => ({ op: "findPasskey" as const, id })),
  userIds.map((userId) => ({ op: "listPasskeys" as const, userId })),
  ceremonyIds.map((id) => ({ op: "findCeremony" as const, id })),
  sessionIds.map((id) => ({ op: "findSession" as const, id })),
  keyIds.map((id) => ({ op: "findKey" as const, id })),
  fc.constant({ op: "listKeys" as const }),
)

const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: write, weight: 5 },
  { arbitrary: read, weight: 4 },
  {
    arbitrary: fc
      .record({ writes: fc.array(write, { minLength: 1, maxLength: 4 }), fail: fc.boolean(), catchErrors: fc.boolean() })
      .map((c) => ({ op: "transaction" as const, ...c })),
    weight: 1,
  },
)

// ---------------------------------------------------------------- interpreter

const plainError = (e: unknown): unknown => (e instanceof UniqueViolation ? { tag: e._tag, what: e.what } : String(e))

/** Runs the commands and records every outcome as plain data; RP ids are replaced by their insertion rank. */
const interpret = (commands: ReadonlyArray<Command>) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const rps = yield* RelyingParties
    const users = yield* Users
    const passkeys = yield* Passkeys
    const ceremonies = yield* Ceremonies
    const sessions = yield* HostedSessions
    const keys = yield* KeyRecords
    const rpIds: Array<number> = []
    const idOfRank = (rank: number): number => rpIds[rank] ?? 999_999
    const ranked = (rp: RelyingParty) => ({ ...rp, id: rpIds.indexOf(rp.id) })
    const opt = <A, B>(f: (a: A) => B) => Option.match({ onNone: () => "none", onSome: f })

    const runWrite = (w: Write): Effect.Effect<unknown, unknown> => {
      switch (w.op) {
        case "insertRp":
          return rps.insert(w.rp).pipe(
            Effect.tap((rp) => Effect.sync(() => rpIds.push(rp.id))),
            Effect.map(ranked),
          )
        // Client ids never change (a rename onto a taken one would be a defect): keep the target's own.
        case "updateRp":
          return rps.findById(idOfRank(w.rank)).pipe(
            Effect.flatMap((current) =>
              rps.update({
                ...w.rp,
                id: idOfRank(w.rank),
                clientId: Option.match(current, { onNone: () => w.rp.clientId, onSome: (rp) => rp.clientId }),
              }),
            ),
          )
        case "insertUser":
          return users.insert(w.user)
        case "insertPasskey":
          return passkeys.insert(w.passkey)
        case "recordUse":
          return passkeys.recordUse(w.id, w.counter, w.at)
        case "insertCeremony":
          return ceremonies.insert(w.ceremony)
        case "consume":
          return ceremonies.consume(w.id, w.at).pipe(Effect.map(opt((c) => c)))
        case "insertSession":
          return sessions.insert(w.session)
        case "insertKey":
          return keys.insert(w.key)
      }
    }
    const run = (c: Command): Effect.Effect<unknown, unknown> => {
      switch (c.op) {
        case "findRp":
          return rps.findById(idOfRank(c.rank)).pipe(Effect.map(opt(ranked)))
        case "findRpByClientId":
          return rps.findByClientId(c.clientId).pipe(Effect.map(opt(ranked)))
        case "listRps":
          return rps.list().pipe(Effect.map((all) => all.map(ranked)))
        case "findUser":
          return users.findById(c.id).pipe(Effect.map(opt((u) => u)))
        case "findUserByEmail":
          return users.findByEmail(c.email).pipe(Effect.map(opt((u) => u)))
        case "findPasskey":
          return passkeys.findById(c.id).pipe(Effect.map(opt((p) => p)))
        case "listPasskeys":
          return passkeys.listByUser(c.userId)
        case "findCeremony":
          return ceremonies.findById(c.id).pipe(Effect.map(opt((x) => x)))
        case "findSession":
          return sessions.findById(c.id).pipe(Effect.map(opt((x) => x)))
        case "findKey":
          return keys.findById(c.id).pipe(Effect.map(opt((x) => x)))
        case "listKeys":
          return keys.list()
        case "transaction": {
          const ranksBefore = rpIds.length
          const body = Effect.forEach(c.writes, (w) =>
            c.catchErrors
              ? Effect.either(runWrite(w)).pipe(Effect.map(Either.match({ onLeft: (e) => ({ caught: plainError(e) }), onRight: (ok) => ({ ok }) })))
              : runWrite(w),
          ).pipe(Effect.zipLeft(c.fail ? Effect.fail("rolled back on purpose") : Effect.void))
          // A rolled-back transaction's RPs do not exist: forget their ids (in both databases alike).
          return storage.transaction(body).pipe(Effect.onError(() => Effect.sync(() => rpIds.splice(ranksBefore))))
        }
        default:
          return runWrite(c)
      }
    }
    const outcomes: Array<unknown> = []
    for (const c of commands) {
      const exit = yield* Effect.exit(run(c))
      outcomes.push(
        Exit.match(exit, {
          onSuccess: (value) => ({ ok: value }),
          // Defects must not happen at all; recording them (rather than dying) shows which command and dialect.
          onFailure: (cause) =>
            Option.match(Cause.failureOption(cause), {
              onSome: (e) => ({ error: plainError(e) }),
              onNone: () => ({ defect: Cause.pretty(cause) }),
            }),
        }),
      )
    }
    return JSON.parse(JSON.stringify(outcomes)) as unknown
  })

// ---------------------------------------------------------------- property

const url = await findPostgres()

describePostgres(url, "SQLite and PostgreSQL", (connectionString) => {
  it("give the same results for the same random commands", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 30 }), async (commands) => {
        const on = (layer: () => Layer.Layer<StorageTags>) => Effect.runPromise(interpret(commands).pipe(Effect.provide(layer())))
        const [sqlite, postgres] = await Promise.all([
          on(() => StorageSqlite({ filename: ":memory:" })),
          on(() => withFreshSchema(connectionString, StoragePostgres)),
        ])
        expect(JSON.stringify(sqlite)).not.toContain('"defect"')
        expect(postgres).toEqual(sqlite)
      }),
      { numRuns: 25 },
    )
  }, 120_000)
})
