/** Whole flows over HTTP with a software passkey: enrol, then sign in. */
import type { PasskeyFault, SoftwarePasskey } from "../passkey/software-passkey.ts"
import { ok, type SignetClient, type TokenAnswer, type ErrorBody, type Answer } from "./client.ts"

/** Proves `email` over HTTP: asks for a code, reads it from the client's mailbox, answers it; the verification id. */
export const proveEmail = async (client: SignetClient, email: string): Promise<string> => {
  if (client.mailbox === undefined) throw new Error("this SignetClient has no mailbox to read verification codes from")
  const started = ok(await client.enrolmentEmail({ email }))
  ok(await client.enrolmentEmailVerify({ verificationId: started.verificationId, code: await client.mailbox(email) }))
  return started.verificationId
}

/** Enrols `passkey` for `email`: a new account (the e-mail proven first), or an existing one with its token. */
export const enrol = async (
  client: SignetClient,
  passkey: SoftwarePasskey,
  input: { email: string; displayName?: string; clientId?: string },
  accessToken?: string,
) => {
  const emailVerificationId = accessToken === undefined ? await proveEmail(client, input.email) : undefined
  const started = ok(await client.enrolmentRequest({ ...input, ...(emailVerificationId !== undefined ? { emailVerificationId } : {}) }, accessToken))
  return ok(await client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options) }))
}

/** Signs in with `passkey` for an RP; a fault breaks exactly one check of the assertion. */
export const signIn = async (
  client: SignetClient,
  passkey: SoftwarePasskey,
  input: { clientId: string; email?: string },
  fault?: PasskeyFault,
): Promise<Answer<TokenAnswer | ErrorBody>> => {
  const started = ok(await client.signinRequest(input))
  const assertion = passkey.assert(started.options, fault === undefined ? {} : { fault })
  return client.signinVerify({ signinId: started.signinId, assertion })
}

/** The client id of Signet's own console (docs/authorization.md): its sign-in grants `files` and `certificates`. */
export const CONSOLE_CLIENT = "signet-console"

/** Signs in with `passkey` at Signet's console: a token that may reach the user's files and certificates and administer the user's RPs. */
export const signInAtConsole = async (client: SignetClient, passkey: SoftwarePasskey, email?: string): Promise<string> =>
  (ok(await signIn(client, passkey, { clientId: CONSOLE_CLIENT, ...(email !== undefined ? { email } : {}) })) as TokenAnswer).access_token

/**
 * A step-up over HTTP (docs/authorization.md#step-up): the token's user approves `action` with
 * `passkey`; answers the proof to send in the `Signet-Step-Up` header (once, within two minutes).
 */
export const stepUp = async (
  client: SignetClient,
  passkey: SoftwarePasskey,
  accessToken: string,
  action: "decrypt" | "revoke-certificate" | "rotate-secrets",
): Promise<string> => {
  const headers = { authorization: `Bearer ${accessToken}` }
  const started = ok(
    await client.raw<{ stepUpId: string; options: Parameters<SoftwarePasskey["assert"]>[0] } | ErrorBody>("POST", "/v2/step-up/challenge", {
      body: { action },
      headers,
    }),
  )
  const assertion = passkey.assert(started.options)
  const done = ok(
    await client.raw<{ stepUpToken: string } | ErrorBody>("POST", "/v2/step-up/verify", { body: { stepUpId: started.stepUpId, assertion }, headers }),
  )
  return done.stepUpToken
}
