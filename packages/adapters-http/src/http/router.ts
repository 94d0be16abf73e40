/** Path matching for `{name}` templates. */
import type { Endpoint } from "./endpoint.ts"

/** A compiled route. */
export interface Route<R> {
  readonly endpoint: Endpoint<any, R>
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const PARAMETER = /^\{(\w+)\}$/

/** Routes in declaration order, and the same routes by the shape of the paths they can match. */
interface Compiled<R> extends ReadonlyArray<Route<R>> {
  /** the routes that can match a path with these segments, in declaration order */
  readonly candidates: (segments: number, first: string) => ReadonlyArray<Route<R>>
}

/**
 * A parameter matches one segment and a literal segment holds no `/`, so a route only matches
 * paths with as many segments as its own, and, when its first segment is literal, that segment.
 * Grouping by both leaves a handful of patterns to try per request instead of every route.
 */
const byShape = <R>(routes: ReadonlyArray<Route<R>>): Compiled<R>["candidates"] => {
  const literal = new Map<string, Array<[number, Route<R>]>>()
  const anyFirst = new Map<number, Array<[number, Route<R>]>>()
  routes.forEach((route, index) => {
    const segments = route.endpoint.path.split("/")
    const first = segments[1] ?? ""
    if (PARAMETER.test(first)) {
      const list = anyFirst.get(segments.length) ?? []
      list.push([index, route])
      anyFirst.set(segments.length, list)
    } else {
      const key = `${segments.length}/${first}`
      const list = literal.get(key) ?? []
      list.push([index, route])
      literal.set(key, list)
    }
  })
  const merged = new Map<string, ReadonlyArray<Route<R>>>()
  return (segments, first) => {
    const key = `${segments}/${first}`
    const known = merged.get(key)
    if (known !== undefined) return known
    const both = [...(literal.get(key) ?? []), ...(anyFirst.get(segments) ?? [])].sort((a, b) => a[0] - b[0]).map(([, route]) => route)
    // Only shapes some route has are kept: a stranger's paths do not grow the map.
    if (both.length > 0) merged.set(key, both)
    return both
  }
}

/** Compiles endpoint paths to anchored patterns; parameters match one path segment. */
export const compileRoutes = <R>(endpoints: ReadonlyArray<Endpoint<any, R>>): ReadonlyArray<Route<R>> => {
  const routes = endpoints.map((endpoint) => {
    const names: Array<string> = []
    const source = endpoint.path
      .split("/")
      .map((segment) => {
        const m = PARAMETER.exec(segment)
        if (m) {
          names.push(m[1]!)
          return "([^/]+)"
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      })
      .join("/")
    return { endpoint, pattern: new RegExp(`^${source}$`), names }
  })
  return Object.assign(routes, { candidates: byShape(routes) })
}

/** The routes that can match `path`: by its shape when compiled here, else all of them. */
const candidatesFor = <R>(routes: ReadonlyArray<Route<R>>, path: string): ReadonlyArray<Route<R>> => {
  const candidates = (routes as Partial<Compiled<R>>).candidates
  if (candidates === undefined) return routes
  const segments = path.split("/")
  return candidates(segments.length, segments[1] ?? "")
}

/** The route for a method and path, or why there is none. */
export const matchRoute = <R>(
  routes: ReadonlyArray<Route<R>>,
  method: string,
  path: string,
):
  | { readonly _tag: "Found"; readonly route: Route<R>; readonly params: Record<string, string> }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "MethodNotAllowed" } => {
  let pathKnown = false
  for (const route of candidatesFor(routes, path)) {
    const m = route.pattern.exec(path)
    if (m === null) continue
    pathKnown = true
    if (route.endpoint.method !== method && !(method === "HEAD" && route.endpoint.method === "GET")) continue
    const params: Record<string, string> = {}
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]!)
    })
    return { _tag: "Found", route, params }
  }
  return pathKnown ? { _tag: "MethodNotAllowed" } : { _tag: "NotFound" }
}
