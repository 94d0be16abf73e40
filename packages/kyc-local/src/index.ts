/**
 * Local, offline KYC providers: an MRZ document reader (own OCR-B classifier), a face matcher and a
 * liveness check (`@vladmandic/human` on the tfjs WASM backend). Models load
 * from the package and installed npm packages, once per process. See docs/kyc-local.md.
 */
export { DocumentReaderLocal, readDocument } from "./document-reader.ts"
export { FaceMatcherLocal, calibrated, faceSimilarity, CALIBRATION } from "./face-matcher.ts"
export { LivenessProviderLocal, assessLiveness } from "./liveness.ts"
export { readMrz, stopOcr, normaliseLine, type MrzRead } from "./mrz-reader.ts"
export type { CharRead } from "./mrz-decide.ts"
export { faceModels, detectFaces, modelMemory, modelPaths, type DetectedFace } from "./models.ts"
export { kycProviders, KycProvidersLocal, type KycProviderChoice } from "./providers.ts"
export { faceTile, variant, resize, crop } from "./samples.ts"
export { DISTINCT_FACES, VARIANTS, faceVariant } from "./samples-set.ts"
export { encodeRgb } from "./encode.ts"
export { decodeRgb, toGrey, type Rgb, type Grey } from "./image.ts"
