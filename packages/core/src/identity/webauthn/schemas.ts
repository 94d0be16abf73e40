/** Input shapes of WebAuthn responses, as the interface spec names them. */
import { Schema } from "effect"

/** The spec's WebAuthn assertion (`assertion`): `navigator.credentials.get()` as JSON. */
export const Assertion = Schema.Struct({
  id: Schema.String,
  rawId: Schema.String,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    authenticatorData: Schema.String,
    clientDataJSON: Schema.String,
    signature: Schema.String,
    userHandle: Schema.optional(Schema.NullOr(Schema.String)),
  }),
  authenticatorAttachment: Schema.optional(Schema.NullOr(Schema.String)),
  clientExtensionResults: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
}).annotations({ identifier: "Assertion", description: "WebAuthn assertion (PublicKeyCredential.toJSON() of navigator.credentials.get())" })
/** The spec's WebAuthn assertion. */
export type Assertion = typeof Assertion.Type

/** A registration response: `navigator.credentials.create()` as JSON. */
export const RegistrationCredential = Schema.Struct({
  id: Schema.String,
  rawId: Schema.String,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Schema.String,
    attestationObject: Schema.String,
    transports: Schema.optional(Schema.Array(Schema.String)),
    authenticatorData: Schema.optional(Schema.String),
    publicKey: Schema.optional(Schema.String),
    publicKeyAlgorithm: Schema.optional(Schema.Number),
  }),
  authenticatorAttachment: Schema.optional(Schema.NullOr(Schema.String)),
  clientExtensionResults: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
}).annotations({ identifier: "RegistrationCredential", description: "WebAuthn registration (PublicKeyCredential.toJSON() of navigator.credentials.create())" })
/** A registration response. */
export type RegistrationCredential = typeof RegistrationCredential.Type
