export {
  BASE_PACKAGES,
  baseImageFor,
  baseRecipe,
  basePythonBin,
  baseRecipeHash,
  DEFAULT_BASE_RECIPE,
  ensureBaseImage,
  type BaseImage,
  type BaseImageOptions,
  type BaseImageRecipe,
} from "./base-image.js";
export { LocalPythonError, localPythonBase, readLocalPython } from "./local-python.js";
export {
  baseKey,
  choosePython,
  describePythonChoice,
  type ImagePython,
  type LocalPython,
  majorMinor,
  PYTHON_BASES,
  PythonChoiceError,
  type PythonBase,
  type PythonChoice,
  type PythonRule,
} from "./python-choice.js";
export {
  HTTPBIN_CERT,
  HTTPBIN_DIR,
  HTTPBIN_KEY,
  httpbinCertificateCommand,
  httpbinStartScript,
  HTTPBIN_TRUST_MODULE,
  NETWORK_STANDINS,
  STANDINS_LABEL,
  standinsFromLabels,
  type HttpbinStandin,
  type NetworkStandins,
} from "./network-standins.js";
export { builderScript, hostCaBundle, runInBuilder, type BuilderRoot, type BuilderRunInput } from "./builder-root.js";
export { builderPipWheel, pipWheelCommand, type BuilderPipWheelInput } from "./builder-pip.js";
export { defaultPipCache, defaultRootCache, defaultWheelCache, loclabCache } from "./caches.js";
export { ImageBuildError } from "./image-build-error.js";
export { buildImage, type BuildImageInput } from "./build-image.js";
export { limiter } from "./build-slots.js";
export { buildTestbedImage, type TestbedImageInput } from "./testbed-image.js";
export { findImage, type ImageRef } from "./image-ref.js";
export { baseImageName, envImageName, instanceImageName, prebuiltImageName } from "./image-names.js";
export { contentHash, sha256 } from "./content-hash.js";
export {
  modelDirectoryName,
  PredictionsFileError,
  readSwePredictions,
  SwePredictionSchema,
  type SwePrediction,
} from "./predictions-file.js";
export {
  CondaEnvironmentError,
  parseMatchSpec,
  translateCondaEnvironment,
  translateCondaPackages,
  type CondaTranslation,
  type RequirementReplacements,
} from "./conda-environment.js";
export { CONDA_ONLY, CONDA_PIP_MARKERS, CONDA_TO_PIP } from "./conda-names.js";
export {
  buildRequirements,
  EnvironmentUnsupportedError,
  planEnvironment,
  type EnvironmentPlan,
  type PlanEnvironmentInput,
} from "./environment-plan.js";
export {
  BUILD_TOOLS,
  IMAGE_PIP,
  DEFAULT_BUILD_CONSTRAINTS,
  effectiveConstraints,
  ensureEnvImage,
  PINNED_STAGES_LABEL,
  IMAGE_PATH,
  pythonFromLabels,
  pythonLabels,
  type EnvImageOptions,
} from "./env-image.js";
export {
  ensureInstanceImage,
  installTarget,
  pretendVersion,
  setupRepoScript,
  type InstanceImageInput,
} from "./instance-image.js";
export { checkoutTestbed, nearestTag } from "./testbed.js";
export { InfraFailure, type InfraFailureReason } from "./infra-failure.js";
export { DEFAULT_EVALUATION_LIMITS, type EvaluationLimits } from "./evaluation-limits.js";
export { APPLY_COMMANDS, applyModelPatch, type ApplyResult } from "./apply-patch.js";
export { removeContainersOnSignal, removeLiveContainers } from "./live-containers.js";
export { runInstance, type RunInstanceInput, type RunInstanceResult } from "./run-instance.js";
export {
  localImageSettings,
  localImages,
  prebuiltImages,
  specForInstance,
  type EvaluationInstance,
  type ImageSource,
  type LocalImageSettings,
  type LocalImagesOptions,
  readCachedEnvironment,
} from "./image-source.js";
export {
  InfraFailureReasonSchema,
  InstanceOutcomeSchema,
  OUTCOME_STATUSES,
  type InstanceOutcome,
  type OutcomeStatus,
} from "./outcome.js";
export { INSTANCE_FILES, instanceDirectory, summaryPath } from "./run-layout.js";
export { runSummary, type RunSummary } from "./run-summary.js";
export { evaluateInstance, testExitCode, type EvaluateInstanceInput } from "./evaluate-instance.js";
export { checkDiskSpace, DiskSpaceError } from "./disk-space.js";
export {
  evaluatePredictions,
  EvaluationInputError,
  type EvaluatePredictionsOptions,
  type EvaluationProgress,
  type EvaluationResult,
} from "./evaluate-predictions.js";
export { calibrate, type CalibrateOptions, type CalibrationEntry, type CalibrationResult } from "./calibrate.js";
export { HarnessSpecSchema, readSpecsFile, SpecsFileError, SpecsFileSchema, type SpecsFile } from "./specs-file.js";
export {
  defaultValidationDir,
  ImageValidationSchema,
  isValidated,
  readValidation,
  recordValidation,
  validationTable,
  type ImageValidation,
  type ValidationInput,
  type ValidationRow,
} from "./validation.js";
export {
  folderUse,
  imageInventory,
  pruneImages,
  type CacheUse,
  type ImageInventory,
  type InventoryOptions,
  type LocalImage,
  type LocalImageKind,
  type PruneOptions,
  type PruneResult,
} from "./image-inventory.js";
export { harnessResolutionDate, isResolvedAsOf, resolutionCutoff, type ResolvedAsOf } from "./resolution-dates.js";
