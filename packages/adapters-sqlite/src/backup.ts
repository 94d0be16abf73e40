/**
 * Online backup and offline restore of the embedded database. A backup is taken with SQLite's
 * backup API from a read connection, so the engine keeps serving (WAL: readers never block its
 * writer); the copy is checked and only then moved to its name, so a backup file that exists is
 * whole. A restore refuses a database some process still has open, and a backup this build
 * cannot read (damaged, or made by a newer engine with migrations this one does not know).
 */
import BetterSqlite3 from "better-sqlite3"
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs"
import { dirname } from "node:path"
import { migrations } from "@signet/adapters-sql"

/** A backup or restore that cannot be done, with the reason an operator can act on. */
export class SqliteBackupRefused extends Error {
  override readonly name = "SqliteBackupRefused"
}

/** What a finished backup holds. */
export interface SqliteBackupResult {
  readonly file: string
  readonly bytes: number
  readonly pages: number
  /** the newest migration the backup has applied */
  readonly schema: string
}

const fsyncFile = (file: string) => {
  const fd = openSync(file, "r")
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** `integrity_check` plus the migrations: the newest one applied, or the reason the file is no engine database of ours. */
const inspect = (file: string): { readonly problem: string } | { readonly schema: string } => {
  let db: BetterSqlite3.Database
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true })
  } catch (e) {
    return { problem: `cannot be opened as SQLite (${e instanceof Error ? e.message : String(e)})` }
  }
  try {
    const check = db.pragma("integrity_check") as Array<{ integrity_check: string }>
    if (check.length !== 1 || check[0]!.integrity_check !== "ok") return { problem: `fails SQLite's integrity check: ${check[0]?.integrity_check ?? "?"}` }
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get()
    if (table === undefined) return { problem: "is not a Signet database (no migration table)" }
    const applied = (db.prepare("select name from kysely_migration order by name").all() as Array<{ name: string }>).map((r) => r.name)
    const known = new Set(Object.keys(migrations("sqlite")))
    const unknown = applied.filter((n) => !known.has(n))
    if (unknown.length > 0) return { problem: `was made by a newer engine (migrations this build does not know: ${unknown.join(", ")})` }
    return { schema: applied.at(-1) ?? "(none)" }
  } catch (e) {
    return { problem: `cannot be read (${e instanceof Error ? e.message : String(e)})` }
  } finally {
    db.close()
  }
}

/**
 * Copies the live database `source` to `target` while the engine runs. The copy is written
 * beside `target`, checked (integrity and schema), flushed, then renamed into place. `target`
 * must not exist: a backup never overwrites another.
 */
export const backupSqlite = async (source: string, target: string): Promise<SqliteBackupResult> => {
  if (!existsSync(source)) throw new SqliteBackupRefused(`no database at ${source}`)
  if (existsSync(target)) throw new SqliteBackupRefused(`${target} exists; a backup never overwrites a file`)
  const partial = `${target}.partial`
  rmSync(partial, { force: true })
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true, timeout: 5000 })
  let pages = 0
  try {
    // The first step takes the default 100 pages; then everything in one step, inside one read
    // transaction: a consistent snapshot that a write by the engine cannot restart halfway.
    const result = await db.backup(partial, { progress: ({ totalPages }) => Math.max(totalPages, 100) })
    pages = result.totalPages
  } catch (e) {
    rmSync(partial, { force: true })
    throw new SqliteBackupRefused(`the backup failed: ${e instanceof Error ? e.message : String(e)}`)
  } finally {
    db.close()
  }
  const inspected = inspect(partial)
  if ("problem" in inspected) {
    rmSync(partial, { force: true })
    throw new SqliteBackupRefused(`the copy ${inspected.problem}`)
  }
  fsyncFile(partial)
  renameSync(partial, target)
  fsyncFile(dirname(target))
  return { file: target, bytes: statSync(target).size, pages, schema: inspected.schema }
}

/**
 * Replaces the database `target` by the backup `backup`. Refuses when `backup` is damaged or
 * from a newer engine, and when any process has `target` open (a running engine): stop it first.
 * The engine applies newer migrations of its own when it next starts.
 */
export const restoreSqlite = (backup: string, target: string): { readonly file: string; readonly schema: string } => {
  if (!existsSync(backup)) throw new SqliteBackupRefused(`no backup at ${backup}`)
  const inspected = inspect(backup)
  if ("problem" in inspected) throw new SqliteBackupRefused(`${backup} ${inspected.problem}; nothing was changed`)
  if (existsSync(target)) {
    // Leaving WAL mode needs the only connection: any other open one (a running engine) makes it
    // fail, and nothing has changed yet. It also folds the WAL back into the file.
    const db = new BetterSqlite3(target, { fileMustExist: true, timeout: 0 })
    try {
      const mode = db.pragma("journal_mode = DELETE", { simple: true })
      if (mode !== "delete") throw new SqliteBackupRefused(`${target} is in use by another process (stop the engine first); nothing was changed`)
    } catch (e) {
      if (e instanceof SqliteBackupRefused) throw e
      throw new SqliteBackupRefused(`${target} is in use by another process (stop the engine first); nothing was changed`)
    } finally {
      db.close()
    }
  }
  const partial = `${target}.restoring`
  const copy = new BetterSqlite3(backup, { readonly: true, fileMustExist: true })
  try {
    // VACUUM INTO writes a fresh, compact file: no pages of the backup's own WAL are left behind.
    rmSync(partial, { force: true })
    copy.prepare("vacuum into ?").run(partial)
  } finally {
    copy.close()
  }
  fsyncFile(partial)
  for (const stale of [`${target}-wal`, `${target}-shm`, `${target}-journal`]) rmSync(stale, { force: true })
  renameSync(partial, target)
  fsyncFile(dirname(target))
  return { file: target, schema: inspected.schema }
}
