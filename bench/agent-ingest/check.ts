/** The API check both measurements run: a GET of `url`, at the bench's private location. */
export const apiCheck = (url: string) => ({
  checkType: 'API',
  name: 'bench',
  activated: false,
  doubleCheck: false,
  privateLocations: ['bench'],
  request: { url, method: 'GET' },
});
