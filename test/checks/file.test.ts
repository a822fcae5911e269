import { describe, expect, it } from 'vitest';
import { formatFileProblem, parseCheckFile, stableCheckId } from '../../src/checks/index.js';

describe('check files', () => {
  it('reads a YAML list and a JSON {checks: [...]}', async () => {
    const yaml = await parseCheckFile(
      '- checkType: URL\n  name: Home\n  request: { url: "https://a.test" }\n',
      'c.yaml',
    );
    expect(yaml.problems).toEqual([]);
    expect(yaml.checks.map((c) => c.name)).toEqual(['Home']);
    const json = await parseCheckFile(
      JSON.stringify({ checks: [{ checkType: 'URL', name: 'Home', request: { url: 'https://a.test' } }] }),
      'c.json',
    );
    expect(json.checks).toHaveLength(1);
  });

  it('gives checks without an id a stable id from their name', async () => {
    const text =
      '- {checkType: URL, name: Home, request: {url: "https://a.test"}}\n- {checkType: URL, name: Shop, id: shop-1, request: {url: "https://a.test"}}';
    const first = (await parseCheckFile(text, 'c.yaml')).checks;
    const second = (await parseCheckFile(text, 'c.yaml')).checks;
    expect(first[0]?.id).toBe(second[0]?.id);
    expect(first[0]?.id).toBe(stableCheckId('Home'));
    expect(first[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableCheckId('Home')).not.toBe(stableCheckId('Shop'));
    expect(first[1]?.id).toBe('shop-1');
  });

  it('labels problems with the check index and name', async () => {
    const text = JSON.stringify([
      { checkType: 'URL', name: 'Ok', request: { url: 'https://a.test' } },
      { checkType: 'URL', name: 'Homepage', frequencyOffset: 101, request: { url: 'https://a.test' } },
    ]);
    const { checks, problems } = await parseCheckFile(text, 'c.json');
    expect(checks).toHaveLength(1);
    expect(problems.map(formatFileProblem)).toEqual([
      'c.json: checks[1] "Homepage": frequencyOffset: must be between 1 and 100 when frequency is 10',
    ]);
  });

  it('rejects duplicate names without ids, a document that is not a list, and broken syntax', async () => {
    const dup = await parseCheckFile(
      '- {checkType: URL, name: A, request: {url: "https://a.test"}}\n- {checkType: URL, name: A, request: {url: "https://a.test"}}',
      'c.yaml',
    );
    expect(dup.problems.map((p) => `${p.label}: ${p.path}: ${p.message}`)).toEqual([
      'checks[1] "A": name: must be unique in the file (checks[0] has the same)',
    ]);
    expect((await parseCheckFile('name: x', 'c.yaml')).problems[0]?.message).toBe(
      'must be a list of checks or {checks: [...]}',
    );
    expect((await parseCheckFile('[{', 'c.json')).problems[0]?.message).toMatch(/^cannot be parsed: /);
  });
});
