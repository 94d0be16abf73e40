/** What every hosted page's script needs: the engine's base path and typed element lookups. */

/** The engine's base path (e.g. `/api`), written by the server into `<html data-api>`. */
export const api: string = document.documentElement.dataset["api"] ?? ""

/** The element with this id; a page without it is a server bug, so it throws rather than returning null. */
export const byId = <E extends HTMLElement = HTMLElement>(id: string): E => {
  const element = document.getElementById(id)
  if (element === null) throw new Error(`The page has no #${id}`)
  return element as E
}

/** The message of anything thrown, for a status line. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The name of a thrown DOMException or Error (e.g. `NotAllowedError`), or "" for anything else. */
export const nameOf = (e: unknown): string => (typeof e === "object" && e !== null && "name" in e && typeof e.name === "string" ? e.name : "")

/** An origin given in the fragment, kept only when it is exactly an origin (`scheme://host[:port]`): messages go nowhere else. */
export const exactOrigin = (value: string | null): string | null => {
  if (!value) return null
  try {
    return new URL(value).origin === value ? value : null
  } catch {
    return null
  }
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
