/**
 * The configuration cache (adapters-sql `config-epoch.ts`) on both databases: two nodes on one
 * database (two SQLite connections on one file, two PostgreSQL pools on one schema), each with
 * its own cache. What one node, or an operator's SQL, changes in an RP record, its plan, its
 * webhooks or the current CAs is seen by the other node's next unit of work; a unit of work sees
 * its own changes; a rolled-back change leaves nothing behind.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlDatabase, type StorageServices } from "@signet/adapters-sql"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { Certificates, RelyingParties, Storage, Subscriptions, WebhookSubscriptions, type StoredCertificate } from "@signet/core"
import { describePostgres, dropSchema, findPostgres, freshSchemaName, sampleRelyingParty, samplePlanSubscription } from "@signet/testkit/storage"
import { StoragePostgres } from "./index.ts"

type Node = Layer.Layer<StorageServices | SqlDatabase>
type Dialect = "sqlite" | "postgres"

const ca = (over: Partial<StoredCertificate>): StoredCertificate => ({
  serial: "01",
  kind: "issuing",
  environment: "sandbox",
  userId: null,
  keyId: "sandbox/issuing/1",
  subject: "CN=Signet Sandbox Issuing CA",
  issuerSerial: "00",
  der: "MIIB",
  notBefore: 1_700_000_000_000,
  notAfter: 4_102_444_800_000,
  status: "valid",
  revokedAt: null,
  revocationReason: null,
  createdAt: 1,
  ...over,
})

/** `effect` as one unit of work on `node`. */
const unit = <A, E>(node: Node, effect: Effect.Effect<A, E, StorageServices>): Effect.Effect<A, E> =>
  Effect.flatMap(Storage, (s) => s.transaction(effect)).pipe(Effect.provide(node))

const nameIn = (node: Node, clientId: string) =>
  unit(
    node,
    Effect.flatMap(RelyingParties, (r) => r.findByClientId(clientId)),
  ).pipe(Effect.map((rp) => Option.getOrThrow(rp).name))

/** Raw SQL on a node's database, as an operator would run it. */
const operator = (node: Node, text: string) =>
  Effect.flatMap(SqlDatabase, ({ db }) => Effect.promise(() => sql.raw(text).execute(db))).pipe(Effect.provide(node))

const suite = (dialect: Dialect, twoNodes: () => Effect.Effect<readonly [Node, Node], never, import("effect").Scope.Scope>) => {
  it.scoped("a change another node makes is seen by the next unit of work: RP record, plan, webhooks, current CAs", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoNodes()
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.insert(sampleRelyingParty({ name: "Before" }))).pipe(Effect.provide(a))
      expect(yield* nameIn(a, rp.clientId)).toBe("Before")
      expect(yield* nameIn(a, rp.clientId)).toBe("Before")
      yield* Effect.flatMap(RelyingParties, (r) => r.update({ ...rp, name: "After", status: "suspended" })).pipe(Effect.provide(b))
      expect(yield* nameIn(a, rp.clientId)).toBe("After")

      const plans = unit(
        a,
        Effect.flatMap(Subscriptions, (s) => s.listForRp(rp.clientId)),
      )
      expect(yield* plans).toEqual([])
      const subscription = samplePlanSubscription({ clientId: rp.clientId })
      yield* Effect.flatMap(Subscriptions, (s) => s.insert(subscription)).pipe(Effect.provide(b))
      expect(yield* plans).toEqual([subscription])

      const hooks = unit(
        a,
        Effect.flatMap(WebhookSubscriptions, (w) => w.listFor(rp.clientId, "sign.complete")),
      )
      expect(yield* hooks).toEqual([])
      const hook = yield* Effect.flatMap(WebhookSubscriptions, (w) =>
        w.insert({
          rpId: rp.id,
          clientId: rp.clientId,
          ownerUserId: "usr_1",
          url: "https://hooks.example.com/a",
          events: ["sign.complete"],
          secret: "sealed:v2:c2VjcmV0",
          active: true,
          createdAt: 5,
        }),
      ).pipe(Effect.provide(b))
      expect((yield* hooks).map((h) => h.id)).toEqual([hook.id])
      yield* Effect.flatMap(WebhookSubscriptions, (w) => w.deactivate(hook.id)).pipe(Effect.provide(b))
      expect(yield* hooks).toEqual([])

      const current = unit(
        a,
        Effect.flatMap(Certificates, (c) => c.findCurrentCas("sandbox")),
      ).pipe(Effect.map(({ root, issuing }) => ({ root: Option.getOrNull(root)?.serial ?? null, issuing: Option.getOrNull(issuing)?.serial ?? null })))
      yield* Effect.flatMap(Certificates, (c) => c.insert(ca({ serial: "01", createdAt: 1 }))).pipe(Effect.provide(b))
      expect(yield* current).toEqual({ root: null, issuing: "01" })
      yield* Effect.flatMap(Certificates, (c) => Effect.zipRight(c.insert(ca({ serial: "02", createdAt: 2 })), c.revoke("01", 3, "keyCompromise"))).pipe(
        Effect.provide(b),
      )
      expect(yield* current).toEqual({ root: null, issuing: "02" })
    }),
  )

  it.scoped("a change made with plain SQL, outside the engine, is seen by the next unit of work", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoNodes()
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.insert(sampleRelyingParty({ name: "Before" }))).pipe(Effect.provide(a))
      expect(yield* nameIn(a, rp.clientId)).toBe("Before")
      yield* operator(b, `update relying_parties set name = 'By hand' where client_id = '${rp.clientId}'`)
      expect(yield* nameIn(a, rp.clientId)).toBe("By hand")
      yield* operator(b, `delete from relying_parties where client_id = '${rp.clientId}'`)
      expect(
        yield* unit(
          a,
          Effect.flatMap(RelyingParties, (r) => r.findByClientId(rp.clientId)),
        ),
      ).toEqual(Option.none())
    }),
  )

  it.scoped("a unit of work sees its own change; when it rolls back, the next one sees the row as it was", () =>
    Effect.gen(function* () {
      const [a] = yield* twoNodes()
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.insert(sampleRelyingParty({ name: "Before" }))).pipe(Effect.provide(a))
      expect(yield* nameIn(a, rp.clientId)).toBe("Before")
      const changeThenFail = Effect.gen(function* () {
        const repo = yield* RelyingParties
        expect(Option.getOrThrow(yield* repo.findByClientId(rp.clientId)).name).toBe("Before")
        yield* repo.update({ ...rp, name: "Undone" })
        expect(Option.getOrThrow(yield* repo.findByClientId(rp.clientId)).name).toBe("Undone")
        return yield* Effect.fail("give up" as const)
      })
      expect(yield* Effect.flip(unit(a, changeThenFail))).toBe("give up")
      expect(yield* nameIn(a, rp.clientId)).toBe("Before")
      // and committed, the next unit sees it
      yield* unit(
        a,
        Effect.flatMap(RelyingParties, (r) => r.update({ ...rp, name: "Kept" })),
      )
      expect(yield* nameIn(a, rp.clientId)).toBe("Kept")
    }),
  )

  it.scoped("the cache answers: with the epoch triggers off, a unit of work still sees the cached row (a read outside one sees the new)", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoNodes()
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.insert(sampleRelyingParty({ name: "Cached" }))).pipe(Effect.provide(a))
      expect(yield* nameIn(a, rp.clientId)).toBe("Cached")
      yield* operator(
        b,
        dialect === "postgres"
          ? "alter table relying_parties disable trigger relying_parties_config_epoch_change"
          : "drop trigger relying_parties_config_epoch_update",
      )
      yield* operator(b, `update relying_parties set name = 'Unseen' where client_id = '${rp.clientId}'`)
      expect(yield* nameIn(a, rp.clientId)).toBe("Cached")
      const outside = yield* Effect.flatMap(RelyingParties, (r) => r.findByClientId(rp.clientId)).pipe(Effect.provide(a))
      expect(Option.getOrThrow(outside).name).toBe("Unseen")
    }),
  )
}

const dir = mkdtempSync(join(tmpdir(), "signet-config-cache-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

describe("config cache, SQLite (two connections on one file)", () => {
  suite("sqlite", () =>
    Effect.gen(function* () {
      const filename = join(dir, `nodes-${++files}.db`)
      const a = yield* Layer.memoize(StorageSqlite({ filename }))
      const b = yield* Layer.memoize(StorageSqlite({ filename }))
      // build A first: it migrates; B then finds the schema current
      yield* Layer.build(a)
      yield* Layer.build(b)
      return [a, b] as const
    }))
})

const url = await findPostgres()

describePostgres(url, "config cache, PostgreSQL (two pools on one schema)", (connectionString) => {
  suite("postgres", () =>
    Effect.gen(function* () {
      const schema = freshSchemaName()
      yield* Effect.addFinalizer(() => Effect.promise(() => dropSchema(connectionString, schema)))
      const a = yield* Layer.memoize(StoragePostgres({ connectionString, schema }))
      const b = yield* Layer.memoize(StoragePostgres({ connectionString, schema }))
      yield* Layer.build(a)
      yield* Layer.build(b)
      return [a, b] as const
    }))
})
