import type { CheckType, KeyValue, Variable } from '../../checks/index.js';
import type { StoredRunnableCheck } from './checks.js';

/** A check as it runs: its definition merged with its group's settings (docs/control-plane.md, Where a check runs). */
export interface EffectiveCheck {
  id: string;
  accountId: string;
  checkType: CheckType;
  name: string;
  tags: string[];
  /** Whether the scheduler runs it: the check and its group are both activated. */
  scheduled: boolean;
  frequency: number;
  frequencyOffset: number | undefined;
  runParallel: boolean;
  /** Public regions then private-location slugs, in the order given; empty when none is named. */
  locations: string[];
  /** The definition sent to agents. */
  definition: Record<string, unknown>;
  /** The group's variables (highest priority of the inherited layers). */
  groupVariables: Variable[];
}

type Json = Record<string, unknown>;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Group request defaults for API checks: headers and query parameters the check lacks, assertions appended. */
function withApiDefaults(definition: Json, defaults: Json): Json {
  const request = isObject(definition.request) ? { ...definition.request } : {};
  const addMissing = (own: unknown, inherited: unknown): KeyValue[] => {
    const mine = Array.isArray(own) ? (own as KeyValue[]) : [];
    const theirs = Array.isArray(inherited) ? (inherited as KeyValue[]) : [];
    const keys = new Set(mine.map((kv) => kv.key.toLowerCase()));
    return [...mine, ...theirs.filter((kv) => !keys.has(kv.key.toLowerCase()))];
  };
  request.headers = addMissing(request.headers, defaults.headers);
  request.queryParameters = addMissing(request.queryParameters, defaults.queryParameters);
  request.assertions = [
    ...(Array.isArray(request.assertions) ? request.assertions : []),
    ...(Array.isArray(defaults.assertions) ? defaults.assertions : []),
  ];
  if (!request.basicAuth && isObject(defaults.basicAuth)) request.basicAuth = defaults.basicAuth;
  return { ...definition, request };
}

/** Whether the check's alerts are muted, by the check or by its group. */
export function isMuted(stored: Pick<StoredRunnableCheck, 'definition' | 'group'>): boolean {
  return stored.definition.muted === true || stored.group?.muted === true;
}

/**
 * Merges a check with its group the way the service does: a group that names locations decides where its checks
 * run (its locations, privateLocations and runParallel replace the check's); a group retry strategy other than
 * FALLBACK/null replaces the check's; a group runtime replaces the check's; API checks take the group's request
 * defaults; the group's variables are inherited below the check's own; a deactivated group stops its checks.
 * A check that neither it nor its group gives a runtime gets the account's.
 */
export function effectiveCheck(stored: StoredRunnableCheck): EffectiveCheck {
  const group = stored.group;
  let definition: Json = { ...stored.definition, id: stored.id };
  let regions = strings(definition.locations);
  let privateLocations = strings(definition.privateLocations);
  let runParallel = definition.runParallel === true;
  const groupVariables: Variable[] = [];

  if (group) {
    const groupRegions = strings(group.locations);
    const groupPrivate = strings(group.privateLocations);
    if (groupRegions.length > 0 || groupPrivate.length > 0) {
      regions = groupRegions;
      privateLocations = groupPrivate;
      runParallel = group.runParallel === true;
      definition = { ...definition, locations: regions, privateLocations, runParallel };
    }
    if (isObject(group.retryStrategy)) definition = { ...definition, retryStrategy: group.retryStrategy };
    if (typeof group.runtimeId === 'string') definition = { ...definition, runtimeId: group.runtimeId };
    const defaults = group.apiCheckDefaults;
    if (stored.checkType === 'API' && isObject(defaults)) definition = withApiDefaults(definition, defaults);
    for (const variable of group.environmentVariables ?? []) {
      groupVariables.push({
        key: variable.key,
        value: variable.value,
        secret: variable.secret || variable.locked,
      });
    }
    if (isObject(defaults) && typeof defaults.url === 'string' && defaults.url !== '') {
      groupVariables.push({ key: 'GROUP_BASE_URL', value: defaults.url });
    }
  }

  if (typeof definition.runtimeId !== 'string' && stored.accountRuntimeId) {
    definition = { ...definition, runtimeId: stored.accountRuntimeId };
  }

  return {
    id: stored.id,
    accountId: stored.accountId,
    checkType: stored.checkType,
    name: stored.name,
    tags: stored.tags,
    scheduled: stored.activated && group?.activated !== false,
    frequency: typeof definition.frequency === 'number' ? definition.frequency : 10,
    frequencyOffset: typeof definition.frequencyOffset === 'number' ? definition.frequencyOffset : undefined,
    runParallel,
    locations: unique([...regions, ...privateLocations]),
    definition,
    groupVariables,
  };
}
