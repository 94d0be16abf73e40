import { describe, expect, it } from "vitest"
import { Layer } from "effect"
import type { Migration } from "kysely"
import { collectMigrations, migrations } from "./migrations.ts"
import { type AnySqlModule, noMigrations } from "./module.ts"
import { sqlModules } from "./modules.ts"

// The names existing databases have recorded: they must come out of the module list unchanged, in this order.
const RELEASED = [
  "0001_foundation",
  "0002_signing",
  "0003_signing_token_flow",
  "0004_webhooks",
  "0005_kyc",
  "0006_documents",
  "0007_openid_provider",
  "0008_identity_providers",
  "0009_rp_platform",
  "0010_plans",
  "0011_prepared_pdfs",
  "0012_pades_levels",
  "0013_authorization",
  "0014_accounts",
  "0015_id_token_algorithm",
]

const migration: Migration = { up: async () => {} }
const moduleWith = (name: string, names: ReadonlyArray<string>): AnySqlModule => ({
  name,
  migrations: () => Object.fromEntries(names.map((n) => [n, migration])),
  repositories: Layer.empty,
})

describe("migrations collected from the module list", () => {
  it.each(["sqlite", "postgres"] as const)("on %s the released migrations keep their names and order", (dialect) => {
    const names = Object.keys(migrations(dialect))
    expect(names.slice(0, RELEASED.length)).toEqual(RELEASED)
    // Later ones (from any module) come after, numbered on.
    expect(names).toEqual([...names].sort())
  })

  it("every number is used once and modules have distinct names", () => {
    const numbers = Object.keys(migrations("sqlite")).map((name) => name.slice(0, 4))
    expect(new Set(numbers).size).toBe(numbers.length)
    expect(numbers).toEqual(numbers.map((_, i) => String(i + 1).padStart(4, "0")))
    const modules = sqlModules.map((m) => m.name)
    expect(new Set(modules).size).toBe(modules.length)
  })

  it("a number taken by two modules is refused, naming both", () => {
    const modules = [moduleWith("a", ["0001_first"]), moduleWith("b", ["0002_second", "0001_other"])]
    expect(() => collectMigrations(modules, "sqlite")).toThrow(/0001 is used twice: 0001_first \(module a\) and 0001_other \(module b\)/)
  })

  it("a name not of the form NNNN_what is refused", () => {
    expect(() => collectMigrations([moduleWith("a", ["1_first"])], "sqlite")).toThrow(/1_first \(module a\) is not named NNNN_what/)
  })

  it("migrations run in name order whatever the order of the modules", () => {
    const modules = [
      moduleWith("late", ["0003_c"]),
      { name: "none", migrations: noMigrations, repositories: Layer.empty },
      moduleWith("early", ["0002_b", "0001_a"]),
    ]
    expect(Object.keys(collectMigrations(modules, "postgres"))).toEqual(["0001_a", "0002_b", "0003_c"])
  })
})
