import { randomUUID } from 'node:crypto';
import type { AlertType } from './state-machine.js';
import { type AlertVariables, alertVariables } from './variables.js';

/** What a channel's test sends: an alert about a made-up check, marked as a test in its error message. */
export function sampleVariables(type: AlertType, publicUrl: string, now: Date): AlertVariables {
  const vars = alertVariables(
    type,
    {
      id: 'test',
      name: 'Vantage test alert',
      checkType: 'API',
      groupName: null,
      tags: ['test'],
      sslCheckDomain: null,
    },
    null,
    undefined,
    now,
  );
  return {
    ...vars,
    CHECK_ERROR_MESSAGE: 'This is a test notification: the channel works.',
    RESPONSE_TIME: 123,
    RUN_LOCATION: 'test',
    RESULT_LINK: publicUrl,
  };
}

export const sampleEpisodeId = () => `test:${randomUUID()}`;
