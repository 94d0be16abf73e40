/** The documents module of the SQL storage: encrypted files and signature images. */
import type { AnySqlModule } from "../module.ts"
import { documentsMigrations } from "./migrations.ts"
import { DocumentsStorageSql } from "./repositories.ts"

export type { EncryptedFilesTable, EncryptedFileRecipientsTable, SignatureImagesTable } from "./tables.ts"

/** The documents module: its migrations and repositories. */
export const documentsSql = {
  name: "documents",
  migrations: documentsMigrations,
  repositories: DocumentsStorageSql,
} satisfies AnySqlModule
