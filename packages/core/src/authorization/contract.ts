/**
 * The authorization contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { Assertion } from "../identity/contract.ts"

// authorization endpoints
/** What a step-up approval is for. */
export const StepUpActionName = Schema.Literal("decrypt", "revoke-certificate", "rotate-secrets")
/** Body of `POST /v2/step-up/challenge`. */
export const StepUpChallengeRequest = Schema.Struct({ action: StepUpActionName })
/** Answer of `POST /v2/step-up/challenge`. */
export const StepUpChallengeResponse = Schema.Struct({
  stepUpId: Schema.String,
  action: StepUpActionName,
  options: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "options for navigator.credentials.get()" }),
})
/** Body of `POST /v2/step-up/verify`. */
export const StepUpVerifyRequest = Schema.Struct({ stepUpId: Schema.String, assertion: Assertion })
/** Answer of `POST /v2/step-up/verify`. */
export const StepUpVerifyResponse = Schema.Struct({ stepUpToken: Schema.String, action: StepUpActionName, expiresIn: Schema.Int })
