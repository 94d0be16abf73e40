/** Engine configuration as a service, so the core never reads the process environment. */
import { Context, Schema } from "effect"

/** `sandbox` and `production` engines refuse each other's tokens, secrets and signatures. */
export const Environment = Schema.Literal("sandbox", "production")
/** `sandbox` and `production` engines refuse each other's tokens, secrets and signatures. */
export type Environment = typeof Environment.Type

/** The interface version label served in the OpenAPI document and the `Signet-Version` header. */
export const INTERFACE_VERSION = "2026-09-26"

/** Settings the core needs; adapters build it from files or the environment. */
export interface EngineSettings {
  readonly environment: Environment
  /** Origin the engine is reached at, e.g. `http://localhost:3000`; hosted pages run here. */
  readonly publicOrigin: string
  /** Path the HTTP handler is mounted under, e.g. `/api`; `""` at the root. */
  readonly basePath: string
  /** Lifetime of user access tokens. */
  readonly accessTokenTtlSeconds: number
  /** Lifetime of enrolment and sign-in ceremonies (their challenges). */
  readonly ceremonyTtlSeconds: number
  /** Lifetime of a hosted-page session (cookie + CSRF token). */
  readonly sessionTtlSeconds: number
  /** How long an RP secret replaced by rotation keeps working (default 24 h, `DEFAULT_SECRET_GRACE_SECONDS`). */
  readonly secretGraceSeconds?: number
}

/** The default grace period of a rotated RP secret: 24 hours. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400

/** Engine configuration service. */
export class EngineConfig extends Context.Tag("@signet/core/EngineConfig")<EngineConfig, EngineSettings>() {}

/** The issuer of this engine's tokens: its public origin plus mount path. */
export const issuerOf = (s: Pick<EngineSettings, "publicOrigin" | "basePath">): string => `${s.publicOrigin}${s.basePath}`

/** The engine's own WebAuthn RP id: the host name of its public origin. */
export const engineRpIdOf = (s: Pick<EngineSettings, "publicOrigin">): string => new URL(s.publicOrigin).hostname

/** Short form of the environment used in identifiers (`sbx`, `prd`). */
export const environmentPrefix = (e: Environment): "sbx" | "prd" => (e === "sandbox" ? "sbx" : "prd")
