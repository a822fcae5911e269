import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

/**
 * A time chart (uPlot); `times` are epoch milliseconds. The canvas says nothing to screen
 * readers: the page gives the same numbers in a table beside it.
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
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 220,
        scales: { x: { time: true, range: (): uPlot.Range.MinMax => [range[0] / 1000, range[1] / 1000] } },
        axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', label: unit }],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false }))],
      },
      [times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(280, element.clientWidth), height: 220 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, range[0], range[1], unit]);
  return (
    <figure class="chart">
      <div ref={box} aria-hidden="true" />
      <figcaption>{caption}</figcaption>
    </figure>
  );
}
