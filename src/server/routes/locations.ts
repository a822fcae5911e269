import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LOCATIONS } from '../../checks/index.js';
import { defineRoute } from '../http/route.js';

/** Friendly names of the public regions (spec: Location). */
const REGION_NAMES: Record<(typeof LOCATIONS)[number], string> = {
  'us-east-1': 'N. Virginia',
  'us-east-2': 'Ohio',
  'us-west-1': 'N. California',
  'us-west-2': 'Oregon',
  'ca-central-1': 'Canada',
  'sa-east-1': 'São Paulo',
  'eu-west-1': 'Ireland',
  'eu-central-1': 'Frankfurt',
  'eu-west-2': 'London',
  'eu-west-3': 'Paris',
  'eu-north-1': 'Stockholm',
  'eu-south-1': 'Milan',
  'me-south-1': 'Bahrain',
  'ap-southeast-1': 'Singapore',
  'ap-northeast-1': 'Tokyo',
  'ap-east-1': 'Hong Kong',
  'ap-southeast-2': 'Sydney',
  'ap-southeast-3': 'Jakarta',
  'ap-northeast-2': 'Seoul',
  'ap-northeast-3': 'Osaka',
  'ap-south-1': 'Mumbai',
  'af-south-1': 'Cape Town',
};

export const locationSchema = z.object({ region: z.string(), name: z.string() });

export function registerLocationRoutes(app: FastifyInstance): void {
  defineRoute(app, {
    method: 'GET',
    path: '/v1/locations',
    summary: 'List the public locations',
    tag: 'Locations',
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(locationSchema) } },
    handler: async () => LOCATIONS.map((region) => ({ region, name: REGION_NAMES[region] })),
  });
}
