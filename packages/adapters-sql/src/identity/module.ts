/** The identity module of the SQL storage: users, passkeys, WebAuthn ceremonies, hosted sessions and e-mail verifications. */
import { Layer } from "effect"
import { type AnySqlModule, noMigrations } from "../module.ts"
import { UsersSql } from "./users.ts"
import { PasskeysSql } from "./passkeys.ts"
import { CeremoniesSql } from "./ceremonies.ts"
import { HostedSessionsSql } from "./hosted-sessions.ts"
import { EmailVerificationsSql } from "./email-verifications.ts"

export type { UsersTable, PasskeysTable, CeremoniesTable, HostedSessionsTable, EmailVerificationsTable } from "./tables.ts"

/** The identity module: its migrations and repositories. */
export const identitySql = {
  name: "identity",
  migrations: noMigrations,
  repositories: Layer.mergeAll(UsersSql, PasskeysSql, CeremoniesSql, HostedSessionsSql, EmailVerificationsSql),
} satisfies AnySqlModule
