/** Path matching for `{name}` templates. */
import type { Endpoint } from "./endpoint.ts"

/** A compiled route. */
export interface Route<R> {
  readonly endpoint: Endpoint<any, R>
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
  /** the segment of the path each of `names` is, in the same order */
  readonly positions: ReadonlyArray<number>
}

const PARAMETER = /^\{(\w+)\}$/

/** Routes in declaration order, and a way to the routes a path matches. */
interface Compiled<R> extends ReadonlyArray<Route<R>> {
  /** the routes whose template matches a path with these segments, in declaration order */
  readonly matching: (segments: ReadonlyArray<string>) => ReadonlyArray<Route<R>>
}

/** A node of the segment tree: the next literal segments, the parameter, and the routes that end here. */
interface Node<R> {
  readonly literal: Map<string, Node<R>>
  param: Node<R> | undefined
  readonly ending: Array<readonly [number, Route<R>]>
}

const node = <R>(): Node<R> => ({ literal: new Map(), param: undefined, ending: [] })

/**
 * The routes as a tree of their segments: a literal segment matches itself, a parameter any
 * non-empty segment (a segment never holds `/`), as the patterns do. A path walks the tree once
 * instead of trying the pattern of every route of its length; where a literal and a parameter
 * both match, both branches are followed, and the routes found keep their declaration order.
 */
const segmentTree = <R>(routes: ReadonlyArray<Route<R>>): Compiled<R>["matching"] => {
  const root = node<R>()
  routes.forEach((route, index) => {
    let at = root
    for (const segment of route.endpoint.path.split("/")) {
      if (PARAMETER.test(segment)) at = at.param ??= node()
      else {
        let next = at.literal.get(segment)
        if (next === undefined) {
          next = node()
          at.literal.set(segment, next)
        }
        at = next
      }
    }
    at.ending.push([index, route])
  })
  const walk = (at: Node<R>, segments: ReadonlyArray<string>, i: number, found: Array<readonly [number, Route<R>]>): void => {
    if (i === segments.length) {
      for (const ending of at.ending) found.push(ending)
      return
    }
    const segment = segments[i]!
    const literal = at.literal.get(segment)
    if (literal !== undefined) walk(literal, segments, i + 1, found)
    if (at.param !== undefined && segment !== "") walk(at.param, segments, i + 1, found)
  }
  return (segments) => {
    const found: Array<readonly [number, Route<R>]> = []
    walk(root, segments, 0, found)
    if (found.length > 1) found.sort((a, b) => a[0] - b[0])
    return found.map(([, route]) => route)
  }
}

/** Compiles endpoint paths to anchored patterns; parameters match one path segment. */
export const compileRoutes = <R>(endpoints: ReadonlyArray<Endpoint<any, R>>): ReadonlyArray<Route<R>> => {
  const routes = endpoints.map((endpoint) => {
    const names: Array<string> = []
    const positions: Array<number> = []
    const source = endpoint.path
      .split("/")
      .map((segment, index) => {
        const m = PARAMETER.exec(segment)
        if (m) {
          names.push(m[1]!)
          positions.push(index)
          return "([^/]+)"
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      })
      .join("/")
    return { endpoint, pattern: new RegExp(`^${source}$`), names, positions }
  })
  return Object.assign(routes, { matching: segmentTree(routes) })
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
  const matching = (routes as Partial<Compiled<R>>).matching
  if (matching !== undefined) {
    // compiled here: the tree gives the routes whose template matches, the parameters are their segments
    const segments = path.split("/")
    const matched = matching(segments)
    for (const route of matched) {
      if (route.endpoint.method !== method && !(method === "HEAD" && route.endpoint.method === "GET")) continue
      const params: Record<string, string> = {}
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(segments[route.positions[i]!]!)
      })
      return { _tag: "Found", route, params }
    }
    return matched.length > 0 ? { _tag: "MethodNotAllowed" } : { _tag: "NotFound" }
  }
  // a plain list of routes: each pattern in turn
  let pathKnown = false
  for (const route of routes) {
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
