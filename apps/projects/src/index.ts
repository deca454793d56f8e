export { apiKeyAuthenticator, authInfo } from './auth.js';
export type * from './db/types.js';
export { DEMO_EMAIL, seedDemo } from './demo.js';
export {
  DESIGN_SYSTEM_TOOL_META,
  DESIGN_SYSTEM_VIEW_URI,
  declaresUi,
  designSystemView,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from './design-system-view.js';
export { defaultTokens, TOKEN_LIMITS, tokenDocument, validateTokens } from './dtcg.js';
export { Code as ErrorCodes } from './errors.js';
export { generateKey, hashKey, KEY_PREFIX } from './keys.js';
export { createProjectsServer, NAME, type ProjectsServerOptions, VERSION } from './server.js';
export {
  type BuildOptions,
  type BuiltFile,
  buildTokens,
  PLATFORMS,
  type Platform,
  TokenBuildError,
} from './tokens/build.js';
export { TokenBuilder } from './tokens/builder.js';
