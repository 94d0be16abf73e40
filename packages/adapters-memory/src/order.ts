/** Sorting as the SQL repositories' ORDER BY clauses do (text by code unit, ties by the next key). */

type Key = string | number | null

/** A comparator over several keys, each ascending or descending; nulls first, as PostgreSQL and SQLite order them ascending. */
export const orderBy =
  <V>(...keys: ReadonlyArray<readonly [(row: V) => Key, "asc" | "desc"]>) =>
  (a: V, b: V): number => {
    for (const [key, direction] of keys) {
      const x = key(a)
      const y = key(b)
      if (x === y) continue
      const ascending = x === null ? -1 : y === null ? 1 : x < y ? -1 : 1
      return direction === "asc" ? ascending : -ascending
    }
    return 0
  }
