/** Quotes a word for /bin/sh. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `<testCommand> --config <path> [--project …] [--grep 'tag1|tag2']`, as a line for /bin/sh. */
export function testCommandLine(
  testCommand: string,
  configPath: string,
  projects: readonly string[],
  tags: readonly string[],
): string {
  const words = ['--config', configPath];
  for (const project of projects) words.push('--project', project);
  if (tags.length > 0)
    words.push('--grep', tags.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
  return [testCommand, ...words.map(shellQuote)].join(' ');
}
