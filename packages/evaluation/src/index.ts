export { DEFAULT_BASE_RECIPE, ensureBaseImage, type BaseImageOptions, type BaseImageRecipe } from "./base-image.js";
export { ImageBuildError } from "./image-build-error.js";
export { buildImage, type BuildImageInput } from "./build-image.js";
export { findImage, type ImageRef } from "./image-ref.js";
export { baseImageName, envImageName, instanceImageName, prebuiltImageName } from "./image-names.js";
export { contentHash, sha256 } from "./content-hash.js";
export { modelDirectoryName, PredictionsFileError, readSwePredictions, SwePredictionSchema, type SwePrediction } from "./predictions-file.js";
