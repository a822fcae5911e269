// The image's HEALTHCHECK: exit 0 when the agent's /-/liveness answers 200 within 3 seconds.
const port = process.env.AGENT_HEALTH_PORT || '8081';
try {
  const response = await fetch(`http://127.0.0.1:${port}/-/liveness`, { signal: AbortSignal.timeout(3000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
