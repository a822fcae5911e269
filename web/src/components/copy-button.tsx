import { useState } from 'preact/hooks';

/** Copies a text to the clipboard and says so (to screen readers too). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        }}
      >
        {label}
      </button>
      <span role="status" class="muted">
        {copied ? ' Copied.' : ''}
      </span>
    </>
  );
}
