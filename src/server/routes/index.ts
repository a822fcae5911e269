import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { registerWebApp } from '../web-app/routes.js';
import { registerAccountRoutes } from './accounts.js';
import { registerAgentRoutes } from './agent.js';
import { registerAgentResultRoutes } from './agent-results.js';
import { registerAlertChannelRoutes } from './alert-channels.js';
import { registerAlertNotificationRoutes } from './alert-notifications.js';
import { registerBadgeRoutes } from './badges.js';
import { registerCheckGroupRoutes } from './check-groups.js';
import { registerCheckRollupRoutes } from './check-rollups.js';
import { registerCheckSessionRoutes } from './check-sessions.js';
import { registerCheckStatusRoutes } from './check-statuses.js';
import { registerCheckRoutes } from './checks.js';
import { registerClientCertificateRoutes } from './client-certificates.js';
import { registerCodeBundleRoutes } from './code-bundles.js';
import { registerErrorGroupRoutes } from './error-groups.js';
import { registerHealthRoutes } from './health.js';
import { registerHeartbeatRoutes } from './heartbeats.js';
import { registerIncidentRoutes } from './incidents.js';
import { registerLocationRoutes } from './locations.js';
import { registerMaintenanceWindowRoutes } from './maintenance-windows.js';
import { registerMetricsRoute } from './metrics.js';
import { registerPrivateLocationRoutes } from './private-locations.js';
import { registerPublicStatusPageRoutes } from './public-status-pages.js';
import { registerStatusPageRoutes } from './status-pages.js';
import { registerTestSessionRoutes } from './test-sessions.js';
import { registerTriggerRunRoutes } from './trigger-runs.js';
import { registerTriggerRoutes } from './triggers.js';
import { registerVariableRoutes } from './variables.js';
import { registerWebSessionRoutes } from './web-sessions.js';

/**
 * Every route module of the public API and the agent gateway, the Prometheus metrics, the health probes and the web
 * app's sign-in.
 */
export function registerRoutes(app: FastifyInstance, context: ServerContext): void {
  registerLocationRoutes(app);
  registerAccountRoutes(app, context);
  registerCheckRoutes(app, context);
  registerCheckRollupRoutes(app, context);
  registerCheckStatusRoutes(app, context);
  registerCheckGroupRoutes(app, context);
  registerHeartbeatRoutes(app, context);
  registerTriggerRoutes(app, context);
  registerTriggerRunRoutes(app, context);
  registerAlertChannelRoutes(app, context);
  registerAlertNotificationRoutes(app, context);
  registerVariableRoutes(app, context);
  registerClientCertificateRoutes(app, context);
  registerCodeBundleRoutes(app, context);
  registerMaintenanceWindowRoutes(app, context);
  registerStatusPageRoutes(app, context);
  registerIncidentRoutes(app, context);
  registerPublicStatusPageRoutes(app, context);
  registerBadgeRoutes(app, context);
  registerErrorGroupRoutes(app, context);
  registerCheckSessionRoutes(app, context);
  registerTestSessionRoutes(app, context);
  registerPrivateLocationRoutes(app, context);
  registerAgentRoutes(app, context);
  registerAgentResultRoutes(app, context);
  registerMetricsRoute(app, context);
  registerHealthRoutes(app, context);
  registerWebSessionRoutes(app, context);
  registerWebApp(app);
}
