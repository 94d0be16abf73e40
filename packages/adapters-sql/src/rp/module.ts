/** The rp module of the SQL storage: relying parties and their organisation checks. */
import { Layer } from "effect"
import type { AnySqlModule } from "../module.ts"
import { rpMigrations } from "./migrations.ts"
import { RelyingPartiesSql } from "./relying-parties.ts"
import { RpOrganisationChecksSql } from "./organisation-checks.ts"

export type { RelyingPartiesTable, RpOrganisationChecksTable } from "./tables.ts"

/** The rp module: its migrations and repositories. */
export const rpSql = {
  name: "rp",
  migrations: rpMigrations,
  repositories: Layer.mergeAll(RelyingPartiesSql, RpOrganisationChecksSql),
} satisfies AnySqlModule
