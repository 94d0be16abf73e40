/** The storage contract and the model-based state-machine suites on the in-memory adapter. */
import { relyingPartyModel, signingModel, signingTokenModel, tokenFamilyModel } from "@signet/testkit/models"
import { storageConformance } from "@signet/testkit/storage"
import { StorageMemory } from "./index.ts"

storageConformance("memory", () => StorageMemory)

relyingPartyModel("memory", () => StorageMemory)
signingModel("memory", () => StorageMemory)
signingTokenModel("memory", () => StorageMemory)
tokenFamilyModel("memory", () => StorageMemory)
