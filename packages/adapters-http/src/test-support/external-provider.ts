/**
 * Test support: a real second OpenID provider (panva's certified `oidc-provider`) on
 * 127.0.0.1, with one confidential client for Signet's callback, in-memory accounts and the
 * library's development login form (any password).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

/** An account the provider knows: the login name is its subject. */
export interface ExternalAccount {
  readonly email: string
  readonly emailVerified: boolean
  readonly name: string
}

/** A running external provider. */
export interface ExternalProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly stop: () => Promise<void>
}

/** Starts the provider; `redirectUri` is Signet's `/idp/callback`. */
export const startExternalProvider = async (redirectUri: string, accounts: Readonly<Record<string, ExternalAccount>>): Promise<ExternalProvider> => {
  let handler: ((req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void) | undefined
  const server = createServer((req, res) => handler!(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = "signet-test"
  const clientSecret = "external-provider-client-secret-0123456789"
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: async (_ctx, id) => {
      const account = accounts[id]
      if (account === undefined) return undefined
      return { accountId: id, claims: async () => ({ sub: id, email: account.email, email_verified: account.emailVerified, name: account.name }) }
    },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ["external-provider-test-cookie-key"] },
  })
  handler = provider.callback()
  return {
    issuer,
    clientId,
    clientSecret,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
