import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { alertSettingsSchema } from '../../checks/index.js';
import { alertSettingsView } from '../alerts/settings.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { jsonParam } from '../store/rows.js';

const TAG = 'Accounts';

const addonSchema = z.object({ tier: z.string(), tierDisplayName: z.string() });
const accountSchema = z.object({
  id: z.string(),
  name: z.string(),
  runtimeId: z.string(),
  plan: z.string(),
  planDisplayName: z.string(),
  addons: z.record(z.string(), addonSchema),
  settings: z.record(z.string(), z.unknown()),
  alertSettings: z.record(z.string(), z.unknown()),
});

interface Row {
  id: string;
  name: string;
  runtime_id: string;
  plan: string;
  settings: Record<string, unknown>;
  alert_settings: unknown;
}

/** A self-hosted control plane has one plan and no paid add-ons. */
const PLAN_NAMES: Record<string, string> = { 'self-hosted': 'Self-hosted' };

function accountOf(row: Row): z.infer<typeof accountSchema> {
  return {
    id: row.id,
    name: row.name,
    runtimeId: row.runtime_id,
    plan: row.plan,
    planDisplayName: PLAN_NAMES[row.plan] ?? row.plan,
    addons: {},
    settings: row.settings,
    alertSettings: alertSettingsView(row.alert_settings),
  };
}

/** The caller's account: an API key acts for exactly one, so the lists hold that one. */
export function registerAccountRoutes(app: FastifyInstance, { db }: ServerContext): void {
  const load = async (id: string) => {
    const [row] = await db.query<Row>(
      'SELECT id, name, runtime_id, plan, settings, alert_settings FROM accounts WHERE id = $1',
      [id],
    );
    return row ? accountOf(row) : null;
  };

  defineRoute(app, {
    method: 'GET',
    path: '/v1/accounts',
    summary:
      'List the accounts of the API key (the caller’s own); the key alone is enough, x-service-account is optional',
    tag: TAG,
    auth: 'user',
    accountOptional: true,
    responses: { 200: { description: 'Successful', schema: z.array(accountSchema) } },
    handler: async ({ auth }) => {
      const account = await load(auth.accountId);
      return account ? [account] : [];
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/accounts/me',
    summary: 'Get the account of the API key; the key alone is enough, x-service-account is optional',
    tag: TAG,
    auth: 'user',
    accountOptional: true,
    responses: { 200: { description: 'Successful', schema: accountSchema } },
    handler: async ({ auth }) => {
      const account = await load(auth.accountId);
      if (!account) throw notFound('Account', auth.accountId);
      return account;
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/accounts/{accountId}',
    summary: 'Get an account (only the caller’s own)',
    tag: TAG,
    auth: 'user',
    params: z.object({ accountId: z.string().min(1) }),
    responses: {
      200: { description: 'Successful', schema: accountSchema },
      404: { description: 'No such account' },
    },
    handler: async ({ auth, params }) => {
      const account = params.accountId === auth.accountId ? await load(auth.accountId) : null;
      if (!account) throw notFound('Account', params.accountId);
      return account;
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/accounts/me',
    summary: 'Update the account of the API key: its name and its alert settings (docs/alerting.md)',
    tag: TAG,
    auth: 'user',
    body: z.strictObject({
      name: z.string().min(1).max(255).optional(),
      alertSettings: alertSettingsSchema.optional(),
    }),
    responses: { 200: { description: 'Successful', schema: accountSchema } },
    handler: async ({ auth, body }) => {
      await db.query(
        `UPDATE accounts SET name = coalesce($2, name), alert_settings = coalesce($3::jsonb, alert_settings)
          WHERE id = $1`,
        [auth.accountId, body.name ?? null, body.alertSettings ? jsonParam(body.alertSettings) : null],
      );
      const account = await load(auth.accountId);
      if (!account) throw notFound('Account', auth.accountId);
      return account;
    },
  });
}
