/** Test support: the 403 message each broken-assertion switch of the software passkey must produce (the spec's text, written once). */
import type { PasskeyFault } from "@signet/testkit"

/** Every switch's message; `counterBackwards` is Signet's own (docs/errors.md). */
export const FAULT_MESSAGES: Readonly<Record<PasskeyFault, string>> = {
  wrongOrigin: "Origin mismatch — possible phishing attack",
  wrongRpId: "Passkey was created for a different site (RP ID mismatch)",
  noUserVerification: "User verification required — biometric or PIN not confirmed",
  badSignature: "Passkey signature verification failed",
  otherChallenge: "Challenge mismatch — dynamic linking failed",
  unregisteredCredential: "Credential not registered",
  counterBackwards: "Passkey signature counter did not increase — possible cloned authenticator",
}

/** The six switches the spec names a message for (all but the counter). */
export const SPEC_FAULT_MESSAGES: ReadonlyArray<readonly [Exclude<PasskeyFault, "counterBackwards">, string]> = (
  Object.entries(FAULT_MESSAGES) as Array<[PasskeyFault, string]>
).filter((e): e is [Exclude<PasskeyFault, "counterBackwards">, string] => e[0] !== "counterBackwards")
