import { z } from 'zod';
import { HEARTBEAT_UNITS, PLAYWRIGHT_ENGINES } from '../enums.js';
import { defineCheck } from './define.js';

const scriptFields = {
  script: z.string().min(1),
  scriptPath: z.string().nullable().optional(),
  setupSnippetId: z.number().int().nullable().optional(),
  tearDownSnippetId: z.number().int().nullable().optional(),
  localSetupScript: z.string().nullable().optional(),
  localTearDownScript: z.string().nullable().optional(),
  sslCheckDomain: z.string().optional(),
};

export const browserCheckSchema = defineCheck('BROWSER', scriptFields);
export type BrowserCheck = z.infer<typeof browserCheckSchema>;

export const multiStepCheckSchema = defineCheck('MULTI_STEP', scriptFields);
export type MultiStepCheck = z.infer<typeof multiStepCheckSchema>;

export const playwrightCheckSchema = defineCheck('PLAYWRIGHT', {
  codeBundlePath: z.string().min(1),
  playwrightConfigPath: z.string().min(1).default('playwright.config.ts'),
  installCommand: z.string().default('npm install --dev'),
  testCommand: z.string().default('npx playwright test'),
  pwProjects: z.array(z.string().min(1)).default([]),
  pwTags: z.array(z.string().min(1)).default([]),
  engine: z.enum(PLAYWRIGHT_ENGINES).default('node22'),
});
export type PlaywrightCheck = z.infer<typeof playwrightCheckSchema>;

const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;
const PERIOD_MIN_SECONDS = 30;
const PERIOD_MAX_SECONDS = 365 * 86_400;

export const heartbeatCheckSchema = defineCheck(
  'HEARTBEAT',
  {
    heartbeat: z.strictObject({
      period: z.number().int().min(1),
      periodUnit: z.enum(HEARTBEAT_UNITS),
      grace: z.number().int().min(0),
      graceUnit: z.enum(HEARTBEAT_UNITS),
    }),
  },
  (check, ctx) => {
    const { period, periodUnit } = check.heartbeat ?? {};
    if (typeof period !== 'number' || !(periodUnit in UNIT_SECONDS)) return;
    const seconds = period * UNIT_SECONDS[periodUnit];
    if (seconds < PERIOD_MIN_SECONDS || seconds > PERIOD_MAX_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['heartbeat', 'period'],
        message: 'must be between 30 seconds and 365 days',
      });
    }
  },
);
export type HeartbeatCheck = z.infer<typeof heartbeatCheckSchema>;

/** A heartbeat's period and grace in milliseconds: it fails when no ping came within both after the last one. */
export function heartbeatWindowMs(heartbeat: HeartbeatCheck['heartbeat']): {
  periodMs: number;
  graceMs: number;
} {
  return {
    periodMs: heartbeat.period * UNIT_SECONDS[heartbeat.periodUnit] * 1000,
    graceMs: heartbeat.grace * UNIT_SECONDS[heartbeat.graceUnit] * 1000,
  };
}

export const agenticCheckSchema = defineCheck('AGENTIC', { prompt: z.string().optional() });
export type AgenticCheck = z.infer<typeof agenticCheckSchema>;
