import { z } from 'zod';
import { problemsOf } from '../checks/index.js';

const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;

const serverEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
    .optional(),
  VANTAGE_DATA_DIR: z.string().default('.vantage/server'),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(LOG_LEVELS))
    .default('INFO'),
  PUBLIC_URL: z.url({ message: 'must be an http(s) URL' }).optional(),
  VANTAGE_BOOTSTRAP_KEY: z.string().min(20, { message: 'must be at least 20 characters' }).optional(),
  METRICS_TOKEN: z.string().min(1).optional(),
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/, {
      message: 'must be true, false, or a comma-separated list of proxy addresses or CIDR ranges',
    })
    .optional(),
});

export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  logLevel: (typeof LOG_LEVELS)[number];
  publicUrl: string;
  bootstrapKey?: string;
  /** When set, GET /metrics (Prometheus) asks for `Authorization: Bearer <metricsToken>`; otherwise it is open. */
  metricsToken?: string;
  /** Proxies whose X-Forwarded-For names a request's source (for the per-source limits): all, none, or these. */
  trustProxy: boolean | string[];
}

function trustProxyOf(value: string | undefined): boolean | string[] {
  if (value === undefined || value === 'false') return false;
  return value === 'true' ? true : value.split(',');
}

/** Reads the server's settings from the environment; throws one line per problem. */
export function serverConfigFromEnv(env: NodeJS.ProcessEnv): ServerConfig {
  const parsed = serverEnv.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      problemsOf(parsed.error)
        .map((p) => `${p.path}: ${p.message}`)
        .join('\n'),
    );
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.VANTAGE_DATA_DIR,
    logLevel: e.LOG_LEVEL,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    bootstrapKey: e.VANTAGE_BOOTSTRAP_KEY,
    metricsToken: e.METRICS_TOKEN,
    trustProxy: trustProxyOf(e.TRUST_PROXY),
  };
}
