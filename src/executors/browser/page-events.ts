import { readFile } from 'node:fs/promises';
import type { JobLogLine } from '../../checks/index.js';
import type { RunLog } from '../../runtimes/index.js';

interface PageEvent {
  time: string;
  level: JobLogLine['level'];
  source: string;
  text: string;
}

/** Adds what the pages said (recorded by the runtime's page-events hook) to the run's log. */
export async function addPageEvents(file: string, log: RunLog): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const event = JSON.parse(line) as PageEvent;
      log.add(event.level, `${event.source}: ${event.text}`, new Date(event.time));
    } catch {
      // A line cut short when the run was killed.
    }
  }
}
