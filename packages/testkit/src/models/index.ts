/** Model-based suites that drive the engine's state machines on a storage adapter. */
export { relyingPartyModel } from "./relying-party.ts"
export { signingModel } from "./signing.ts"
export { ManualClock } from "./manual-clock.ts"
export { signingTokenModel } from "./ssc.ts"
export { tokenFamilyModel } from "./token-family.ts"
