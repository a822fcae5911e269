import { type AlertSettingsInput, alertSettingsSchema } from '../../checks/index.js';

/** Alert settings with every default filled in (docs/alerting.md, Settings). */
export interface AlertSettings {
  escalationType: 'RUN_BASED' | 'TIME_BASED';
  failedRunThreshold: number;
  minutesFailingThreshold: number;
  reminders: { amount: number; intervalMinutes: number };
  parallelRunFailureThreshold: { enabled: boolean; percentage: number };
  sslCertificates: { enabled: boolean; alertThreshold: number };
}

type Json = Record<string, unknown>;

/** Fills in the defaults; stored settings that no longer validate fall back to the defaults entirely. */
export function alertSettingsOf(stored: unknown): AlertSettings {
  const parsed = alertSettingsSchema.safeParse(stored ?? {});
  const given: AlertSettingsInput = parsed.success ? parsed.data : alertSettingsSchema.parse({});
  return {
    escalationType: given.escalationType,
    failedRunThreshold: given.runBasedEscalation?.failedRunThreshold ?? 1,
    minutesFailingThreshold: given.timeBasedEscalation?.minutesFailingThreshold ?? 5,
    reminders: { amount: given.reminders?.amount ?? 0, intervalMinutes: given.reminders?.interval ?? 5 },
    parallelRunFailureThreshold: {
      enabled: given.parallelRunFailureThreshold?.enabled ?? false,
      percentage: given.parallelRunFailureThreshold?.percentage ?? 10,
    },
    sslCertificates: {
      enabled: given.sslCertificates?.enabled ?? false,
      alertThreshold: given.sslCertificates?.alertThreshold ?? 30,
    },
  };
}

/**
 * The settings that apply to a check: its own when `useGlobalAlertSettings` is false; else its group's when the
 * group's `useGlobalAlertSettings` is false; else the account's.
 */
export function effectiveAlertSettings(check: Json, group: Json | null, account: unknown): AlertSettings {
  if (check.useGlobalAlertSettings === false) return alertSettingsOf(check.alertSettings);
  if (group && group.useGlobalAlertSettings === false) return alertSettingsOf(group.alertSettings);
  return alertSettingsOf(account);
}

/** Settings as the API shows them: every field, defaults included. */
export function alertSettingsView(stored: unknown): Required<AlertSettingsInput> {
  const s = alertSettingsOf(stored);
  return {
    escalationType: s.escalationType,
    runBasedEscalation: { failedRunThreshold: s.failedRunThreshold },
    timeBasedEscalation: { minutesFailingThreshold: s.minutesFailingThreshold },
    reminders: { amount: s.reminders.amount, interval: s.reminders.intervalMinutes },
    parallelRunFailureThreshold: s.parallelRunFailureThreshold,
    sslCertificates: s.sslCertificates,
  };
}
