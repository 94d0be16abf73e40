/** Model-based suites that drive the engine's state machines on a storage adapter. */
export { relyingPartyModel } from "./relying-party.ts"
