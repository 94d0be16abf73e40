/** OpenID Provider metadata (OpenID Connect Discovery 1.0 §3, RFC 8414), served at `<issuer>/.well-known/openid-configuration`. */
import { Effect } from "effect"
import { EngineConfig, issuerOf } from "../ports/engine-config.ts"
import { OIDC_SCOPES, ID_TOKEN_ALGORITHMS } from "./model.ts"

/** The discovery document; every endpoint lies under the issuer (public origin + mount path). */
export const providerMetadata = Effect.map(EngineConfig, (settings) => {
  const issuer = issuerOf(settings)
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    end_session_endpoint: `${issuer}/logout`,
    scopes_supported: [...OIDC_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...ID_TOKEN_ALGORITHMS],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    claims_supported: ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "azp", "email", "email_verified", "name"],
    prompt_values_supported: ["none", "consent"],
    authorization_response_iss_parameter_supported: true,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  }
})
