/** The shape of a capability module of the HTTP adapter: its endpoints and its hosted pages. */
import type { Endpoint } from "./http/endpoint.ts"

/**
 * What one capability serves. `Options` is the part of the engine's options the module reads
 * (declared structurally by the module, so the engine passes its options through without
 * naming any module); `R` what its handlers need from the engine runtime.
 */
export interface HttpModule<in Options, out R> {
  /** the module's name: its folder */
  readonly name: string
  /** its API endpoints, in routing order */
  readonly endpoints: (options: Options) => ReadonlyArray<Endpoint<any, R>>
  /** its hosted pages and their scripts (routed after every module's endpoints) */
  readonly pages?: ReadonlyArray<Endpoint<any, R>>
}
