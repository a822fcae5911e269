export { DEFAULT_RUNTIME_ID, installedRuntimes, type Runtime, resolveRuntime } from './catalog.js';
export { CHROMIUM_ARGS, chromiumMissing, findChromium } from './chromium.js';
export {
  availableEngines,
  type Engine,
  type EngineId,
  enginePath,
  findEngine,
  HOST_NODE_BIN,
} from './engines.js';
export { SANDBOX_ENV_NAMES } from './env-names.js';
export { MANIFEST_FILE, type RuntimeManifest, readManifest } from './manifest.js';
export { type NodeScriptRequest, type NodeScriptResult, runNodeScript } from './node-script.js';
export {
  RUNTIME_VARIABLES,
  runMarker,
  type ScriptIdentity,
  scriptEnvironment,
} from './sandbox/environment.js';
export { RunLog, stripAnsi } from './sandbox/output.js';
export { killRunProcesses, runProcesses, userProcesses } from './sandbox/processes.js';
export { createRunFolder, handOver, type RunFolder, removeRunFolder } from './sandbox/run-folder.js';
export { openRunSpace, type RunSpace } from './sandbox/run-space.js';
export {
  acquireRunUser,
  type RunUser,
  type ScriptUsers,
  scriptUsersWarning,
} from './sandbox/script-users.js';
export {
  memoryCapAvailable,
  nodeHeapFlag,
  runSandboxed,
  type SandboxExit,
  type SandboxedCommand,
} from './sandbox/spawn.js';
export { userCacheFolder } from './sandbox/user-cache.js';
export {
  BROWSER_VIDEO_MODES,
  type BrowserVideo,
  SANDBOX_ENV,
  type SandboxEnv,
  type ScriptSettings,
  scriptSettingsFromEnv,
  scriptSettingsOf,
} from './settings.js';
