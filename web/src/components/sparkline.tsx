/** A tiny line of response times (null: no measurement in that step), drawn as SVG; its numbers are in the title. */
export function Sparkline({ values, label }: { values: readonly (number | null)[]; label: string }) {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return <span class="muted">no data</span>;
  const max = Math.max(...known) || 1;
  const width = 96;
  const height = 24;
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const segments: string[] = [];
  let open = false;
  values.forEach((value, i) => {
    if (value === null) {
      open = false;
      return;
    }
    const x = (i * step).toFixed(1);
    const y = (height - 2 - (value / max) * (height - 4)).toFixed(1);
    // A zero-length line after each move: with round caps, a lone point shows as a dot.
    segments.push(open ? `L${x} ${y}` : `M${x} ${y} l0 0`);
    open = true;
  });
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <path d={segments.join(' ')} />
    </svg>
  );
}
