/** Checks as the control plane stores them, against local targets. */
export function apiCheck(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `check-${Math.random().toString(36).slice(2, 10)}`,
    checkType: 'API',
    name: 'API check',
    request: {
      url,
      method: 'GET',
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null }],
    },
    ...extra,
  };
}
