import { ms } from '../format.js';

const PHASES = [
  ['wait', 'Wait'],
  ['dns', 'DNS'],
  ['tcp', 'TCP and TLS'],
  ['firstByte', 'First byte'],
  ['download', 'Download'],
] as const;

/** The phases of one HTTP request, one after another along the total (and as a list, for every reader). */
export function Waterfall({ phases }: { phases: Record<string, number> }) {
  const total = phases.total || PHASES.reduce((sum, [key]) => sum + (phases[key] ?? 0), 0) || 1;
  let start = 0;
  return (
    <ol class="waterfall" aria-label={`Timing phases, ${ms(total)} in all`}>
      {PHASES.map(([key, label]) => {
        const value = phases[key] ?? 0;
        const left = (start / total) * 100;
        start += value;
        return (
          <li key={key}>
            <span class="phase">{label}</span>
            <span class="track" aria-hidden="true">
              <span
                class={`bar bar-${key}`}
                style={{ marginLeft: `${left}%`, width: `${Math.max((value / total) * 100, 0.5)}%` }}
              />
            </span>
            <span class="value">{ms(value)}</span>
          </li>
        );
      })}
    </ol>
  );
}
