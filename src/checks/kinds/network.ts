import { z } from 'zod';
import { assertionSchema } from '../assertion.js';
import { DNS_PROTOCOLS, DNS_RECORD_TYPES, IP_FAMILIES } from '../enums.js';
import { responseTime } from '../shared.js';
import { defineCheck, hostnameSchema } from './define.js';

export const tcpCheckSchema = defineCheck('TCP', {
  request: z.strictObject({
    hostname: hostnameSchema,
    port: z.number().int().min(1).max(65535),
    ipFamily: z.enum(IP_FAMILIES).default('IPv4'),
    data: z.string().default(''),
    assertions: z.array(assertionSchema('TCP')).default([]),
  }),
  degradedResponseTime: responseTime(4000, 30_000),
  maxResponseTime: responseTime(5000, 30_000),
});
export type TcpCheck = z.infer<typeof tcpCheckSchema>;

export const dnsCheckSchema = defineCheck('DNS', {
  request: z.strictObject({
    query: z.string().min(1).max(100),
    recordType: z.enum(DNS_RECORD_TYPES).default('A'),
    nameServer: z.string().min(1).nullable().optional(),
    port: z.number().int().min(1).max(65535).default(53),
    protocol: z.enum(DNS_PROTOCOLS).default('UDP'),
    assertions: z.array(assertionSchema('DNS')).default([]),
  }),
  degradedResponseTime: responseTime(500, 5000),
  maxResponseTime: responseTime(1000, 5000),
});
export type DnsCheck = z.infer<typeof dnsCheckSchema>;

const packetLoss = (defaultPercent: number) =>
  z
    .number()
    .gt(0, { message: 'must be greater than 0' })
    .max(100, { message: 'must be at most 100' })
    .nullable()
    .default(defaultPercent);

/** ICMP fields of the spec; `heartbeat` and `script` are required only by the API's create body. */
export const icmpFields = {
  request: z.strictObject({
    hostname: hostnameSchema,
    ipFamily: z.enum(IP_FAMILIES).default('IPv4'),
    pingCount: z.number().int().min(1).max(50).default(10),
    assertions: z.array(assertionSchema('ICMP')).default([]),
  }),
  heartbeat: z.record(z.string(), z.unknown()).optional(),
  script: z.string().optional(),
  scriptPath: z.string().nullable().optional(),
  sslCheckDomain: z.string().optional(),
  setupSnippetId: z.number().int().nullable().optional(),
  tearDownSnippetId: z.number().int().nullable().optional(),
  localSetupScript: z.string().nullable().optional(),
  localTearDownScript: z.string().nullable().optional(),
  degradedResponseTime: responseTime(10_000, 300_000),
  maxResponseTime: responseTime(20_000, 300_000),
  degradedPacketLossThreshold: packetLoss(10),
  maxPacketLossThreshold: packetLoss(20),
};

export const icmpCheckSchema = defineCheck('ICMP', icmpFields, (check, ctx) => {
  const { degradedPacketLossThreshold: degraded, maxPacketLossThreshold: max } = check;
  if (typeof degraded === 'number' && typeof max === 'number' && max < degraded) {
    ctx.addIssue({
      code: 'custom',
      path: ['maxPacketLossThreshold'],
      message: `must be at least degradedPacketLossThreshold (${degraded})`,
    });
  }
});
export type IcmpCheck = z.infer<typeof icmpCheckSchema>;
