/** The shapes of the API's answers that the pages read: the server's own types (docs/api.md). */
import type { CheckResult } from '../../src/checks/results.js';

export type { AssertionResult, CheckResult, CheckSession } from '../../src/checks/results.js';
export type { Aggregate, CheckAggregates, CheckSummary } from '../../src/server/analytics/aggregate.js';
export type { CheckState, CheckStatus } from '../../src/server/check-statuses/status.js';
export type { AgentRecord } from '../../src/server/gateway/agent-list.js';

/** A result as `GET /v1/check-results/{checkId}` lists it. */
export type ListedResult = CheckResult & { id: string; checkSessionId: string; created_at: string };
