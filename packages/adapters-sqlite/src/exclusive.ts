/** Holding a SQLite database alone, for maintenance that no engine may run beside (master-key rotation). */
import type { Database } from "@signet/adapters-sql"
import { type Kysely, sql } from "kysely"
import { SqliteBackupRefused } from "./backup.ts"

/**
 * Switches the connection to exclusive locking and takes the write lock, which it then keeps until
 * it closes: another process that has the file open (a running engine) makes this fail at once with
 * `SqliteBackupRefused`, and no engine can open the database meanwhile.
 */
export const holdSqliteExclusively = async (db: Kysely<Database>, file: string): Promise<void> => {
  await sql`PRAGMA locking_mode = EXCLUSIVE`.execute(db)
  try {
    await db.transaction().execute((trx) => sql`UPDATE keys SET key_id = key_id WHERE 0 = 1`.execute(trx))
  } catch (e) {
    if (/locked|busy/i.test(String((e as { readonly message?: unknown }).message))) {
      throw new SqliteBackupRefused(`${file} is in use by another process (stop the engine first); nothing was changed`)
    }
    throw e
  }
}
