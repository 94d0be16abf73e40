/**
 * Adapters say what they are, so an engine can list the ones it runs and a production engine
 * can refuse the sandbox ones. A sandbox adapter (fixtures decide its answers: a JPEG comment
 * makes a person verified, a test card pays) is declared with `sandboxAdapter`; its layer reads
 * EngineConfig when it is built and dies in production, whoever builds it. The engine also
 * checks the declared list before it starts, so the refusal names every offending adapter.
 * A new sandbox adapter is covered by declaring it with `sandboxAdapter` (one line).
 */
import { Effect, Layer } from "effect"
import { EngineConfig, type Environment } from "./engine-config.ts"

/** What an adapter declares about itself. */
export interface AdapterInfo {
  /** the port it serves, as an operator reads it: `KYC document reader`, `payments` */
  readonly port: string
  /** which adapter: `sandbox`, `local`, `built-in`, `unconfigured` ... */
  readonly adapter: string
  /** answers from fixtures; never acceptable in production */
  readonly sandbox: boolean
  /** the setting that chooses another adapter for this port (named in the refusal) */
  readonly setting: string
}

const DECLARED = Symbol.for("@signet/core/adapters")

// The declaration rides on a fresh wrapper, so one layer can be declared in several places.
const declare = <A, E, R>(layer: Layer.Layer<A, E, R>, infos: ReadonlyArray<AdapterInfo>): Layer.Layer<A, E, R> => {
  const wrapper = Layer.suspend(() => layer)
  Object.defineProperty(wrapper, DECLARED, { value: infos, enumerable: false })
  return wrapper
}

/** The adapters a layer declared (an undeclared layer declares none). */
export const adaptersOf = (layer: unknown): ReadonlyArray<AdapterInfo> =>
  typeof layer === "object" && layer !== null && DECLARED in layer ? (layer as { readonly [DECLARED]: ReadonlyArray<AdapterInfo> })[DECLARED] : []

/** Declares a real (non-sandbox) adapter: listed in the start-up banner, accepted everywhere. */
export const declareAdapter = <A, E, R>(info: Omit<AdapterInfo, "sandbox">, layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  declare(layer, [{ ...info, sandbox: false }])

/** The adapters of several declared layers, merged into one layer that declares them all. */
export const mergeAdapters = <const Layers extends readonly [Layer.Layer<any, any, any>, ...Array<Layer.Layer<any, any, any>>]>(...layers: Layers) =>
  declare(
    Layer.mergeAll(...layers),
    layers.flatMap((l) => adaptersOf(l)),
  )

/** The refusal of a production engine with sandbox adapters: it names each one and the setting to change. */
export class SandboxAdapterRefused extends Error {
  override readonly name = "SandboxAdapterRefused"
  constructor(readonly adapters: ReadonlyArray<AdapterInfo>) {
    super(
      `a production engine does not run sandbox adapters (their answers come from test fixtures): ${adapters
        .map((a) => `${a.port} is the sandbox adapter (set ${a.setting})`)
        .join("; ")}; or run it with environment=sandbox (SIGNET_ENVIRONMENT=sandbox)`,
    )
  }
}

/** The sandbox adapters among `adapters` that `environment` refuses (all of them in production). */
export const refusedAdapters = (environment: Environment, adapters: ReadonlyArray<AdapterInfo>): ReadonlyArray<AdapterInfo> =>
  environment === "production" ? adapters.filter((a) => a.sandbox) : []

/**
 * Declares a sandbox adapter. Building its layer reads EngineConfig: in production it dies with
 * `SandboxAdapterRefused`, so an embedder composing layers itself is refused too.
 */
export const sandboxAdapter = <A, E, R>(
  info: Omit<AdapterInfo, "sandbox" | "adapter"> & { readonly adapter?: string },
  layer: Layer.Layer<A, E, R>,
): Layer.Layer<A, E, R | EngineConfig> => {
  const full: AdapterInfo = { adapter: "sandbox", ...info, sandbox: true }
  const guarded = Layer.unwrapEffect(
    Effect.map(EngineConfig, (settings) =>
      refusedAdapters(settings.environment, [full]).length > 0 ? (Layer.die(new SandboxAdapterRefused([full])) as Layer.Layer<A, E, R>) : layer,
    ),
  )
  return declare(guarded, [full])
}
