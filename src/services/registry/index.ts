// The platform registry: every rule about a platform record lives here, shared by
// the admin API (src/operations/*Platform*.ts) and the operator CLI (src/cli/),
// so both accept and refuse exactly the same input. The API's contract
// validation runs first and catches shapes; the checks (rules.ts) repeat the shapes
// (the CLI and the dev stack do not pass through the contract) and add the
// rules JSON Schema cannot express: URL safety, de-duplication of equivalent
// return roots, and the cross-field rules of an active platform.
//
// platforms.ts: the service functions (reads, writes, representation);
// validate.ts: a create body and a patch, checked whole; rules.ts: one check per field.
// Other domains reach the registry through this file only, never platformsRepository.ts
// (npm run lint:deps, no-cross-domain-queries): the platform reads below are its API to them.

export {
  activatePlatform,
  CLI_ACTOR,
  CLIENT_ID_PREFIX,
  CLIENT_SECRET_PREFIX,
  createPlatform,
  deactivatePlatform,
  getPlatform,
  listPlatforms,
  rotatePlatformCredentials,
  SEARCH_MAX_LENGTH,
  toPlatformView,
  updatePlatform,
  type Actor,
  type PlatformCreateInput,
  type PlatformCredentialsView,
  type PlatformList,
  type PlatformListQuery,
  type PlatformUpdateInput,
  type PlatformView,
} from './platforms.ts';
export { METADATA_MAX_BYTES, METADATA_MAX_PROPERTIES, MAX_RETURN_URLS, ONBOARDING_MODES, PLATFORM_KEY_PATTERN, type RegistryRules } from './rules.ts';
export { validateCreate, validateUpdate } from './validate.ts';
export {
  clearBranding,
  deleteLogo,
  getBranding,
  LOGO_CACHE_CONTROL,
  LOGO_MAX_BYTES,
  LOGO_MAX_SIDE,
  LOGO_UPLOAD_TYPES,
  readLogo,
  setBranding,
  toBrandingView,
  uploadLogo,
  validateBranding,
  type PlatformBrandingInput,
  type PlatformBrandingView,
} from './branding.ts';
export {
  activePlatformsOfMember,
  findActivePlatformById,
  findActivePlatformByKey,
  findActivePlatformByKeyCounting,
  findPlatformByKey,
  lockPlatformByKey,
  lockPlatformForShare,
  type OnboardingMode,
  type PlatformRow,
} from './platformsRepository.ts';
