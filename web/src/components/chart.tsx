import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** A CSS custom property of styles.css (`--series-1`, …), so the line follows the light or dark theme. */
  color: string;
}

/** The colours of a chart's series, in order; each reads well on both themes' backgrounds (styles.css). */
export const SERIES_COLORS = [
  '--series-1',
  '--series-2',
  '--series-3',
  '--series-4',
  '--series-5',
  '--series-6',
];

const dark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

/**
 * A time chart (uPlot); `times` are epoch milliseconds. The canvas says nothing to screen
 * readers: the page gives the same numbers in a table beside it. It is drawn again when the theme changes.
 */
export function TimeChart({
  times,
  series,
  caption,
  range,
  unit = 'ms',
}: {
  times: number[];
  series: ChartSeries[];
  caption: string;
  /** The window shown, epoch milliseconds from and to (the data may cover less of it). */
  range: [number, number];
  /** What the values count, for the axis. */
  unit?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let plot: uPlot | null = null;
    const draw = () => {
      plot?.destroy();
      const style = getComputedStyle(element);
      const color = (name: string) => style.getPropertyValue(name).trim() || style.color;
      const axis = {
        stroke: color('--fg'),
        grid: { stroke: color('--line') },
        ticks: { stroke: color('--line') },
      };
      plot = new uPlot(
        {
          width: Math.max(280, element.clientWidth),
          height: 220,
          scales: { x: { time: true, range: (): uPlot.Range.MinMax => [range[0] / 1000, range[1] / 1000] } },
          axes: [axis, { ...axis, label: unit }],
          series: [
            {},
            ...series.map((s) => ({ label: s.label, stroke: color(s.color), width: 2, spanGaps: false })),
          ],
        },
        [times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
        element,
      );
    };
    draw();
    const resize = new ResizeObserver(() =>
      plot?.setSize({ width: Math.max(280, element.clientWidth), height: 220 }),
    );
    resize.observe(element);
    dark?.addEventListener('change', draw);
    return () => {
      dark?.removeEventListener('change', draw);
      resize.disconnect();
      plot?.destroy();
    };
  }, [times, series, range[0], range[1], unit]);
  return (
    <figure class="chart">
      <div ref={box} aria-hidden="true" />
      <figcaption>{caption}</figcaption>
    </figure>
  );
}
