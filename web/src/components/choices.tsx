import { useLocation } from 'preact-iso';

/**
 * A row of links that each show the page another way (a window, a percentile), the chosen one marked current.
 * The choice lives in the URL, so the view can be shared; following one replaces the history entry.
 */
export function Choices({
  label,
  options,
  chosen,
  hrefOf,
}: {
  label: string;
  options: readonly string[];
  chosen: string;
  hrefOf: (option: string) => string;
}) {
  const { route } = useLocation();
  return (
    <nav aria-label={label} class="tabs">
      {options.map((option) => (
        <a
          key={option}
          href={hrefOf(option)}
          aria-current={option === chosen ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            route(hrefOf(option), true);
          }}
        >
          {option}
        </a>
      ))}
    </nav>
  );
}
