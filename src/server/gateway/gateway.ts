import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { WebSocketServer } from 'ws';
import { AGENT_PATHS, CLOSE_CODES, PROTOCOL_LIMITS } from '../../protocol/index.js';
import { authenticate } from '../auth/authenticate.js';
import { ApiError, errorBody } from '../common/errors.js';
import { Loop } from '../common/loop.js';
import { pendingCancels } from '../queue/cancel.js';
import { queueKey } from '../queue/events.js';
import { AgentConnection, connectionAuthOf } from './connection.js';
import type { GatewayDeps } from './deps.js';

/** How long shutdown waits for agents to answer the close of their connections. */
const CLOSE_WAIT_MS = 1000;

/**
 * The agent side of docs/protocol.md: WebSocket connections of agents on this server, fed with runs from the
 * queue, told to cancel, and closed when their key is revoked. Cancels and runs enqueued on other replicas are
 * found by polling the store.
 */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: PROTOCOL_LIMITS.maxMessageBytes });
  private readonly connections = new Set<AgentConnection>();
  private readonly cancelPoll: Loop;
  private readonly listeners: [event: 'enqueued' | 'cancel' | 'key-revoked', fn: (value: string) => void][];
  /** Set when stop() begins: agents that connect from then on are turned away (they go to another replica). */
  private stopping = false;

  constructor(private readonly deps: GatewayDeps) {
    this.cancelPoll = new Loop(
      'forwarding cancels',
      deps.settings.dispatchPollMs,
      () => this.forwardCancels(),
      deps.log,
    );
    this.listeners = [
      ['enqueued', (queue) => this.nudge(queue)],
      ['cancel', (runId) => this.cancelLocally(runId)],
      ['key-revoked', (keyId) => this.revokeKey(keyId)],
    ];
  }

  /** Takes over WebSocket upgrades of `server` (fastify does not handle them). */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(request, socket, head);
    });
  }

  start(): void {
    for (const [event, fn] of this.listeners) this.deps.events.on(event, fn);
    this.cancelPoll.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const [event, fn] of this.listeners) this.deps.events.off(event, fn);
    await this.cancelPoll.stop();
    for (const connection of this.connections)
      connection.close(CLOSE_CODES.shuttingDown, 'server shutting down');
    // Give the agents a moment to answer the close, so their rows are marked disconnected before the store closes.
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const connection of this.connections) connection.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => {});
    const path = (request.url ?? '/').split('?')[0];
    if (path !== AGENT_PATHS.connect) return reject(socket, new ApiError(404, `Route GET ${path} not found`));
    if (this.stopping) return reject(socket, SHUTTING_DOWN);
    let auth: ReturnType<typeof connectionAuthOf>;
    try {
      // The same check as every HTTP route with auth 'location': 401 without a valid key, 403 for a user key.
      auth = connectionAuthOf(
        await authenticate(this.deps.db, { headers: request.headers } as FastifyRequest, 'location'),
      );
    } catch (error) {
      return reject(socket, error);
    }
    if (!auth) return reject(socket, new ApiError(403, 'This key does not belong to a private location'));
    const connectionAuth = auth;
    if (this.stopping) return reject(socket, SHUTTING_DOWN);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new AgentConnection(ws, connectionAuth, this.deps, {
        onReady: (ready) => this.replaceEarlier(ready),
        onClosed: (closed) => this.connections.delete(closed),
      });
      this.connections.add(connection);
    });
  }

  /** An agent that reconnects while its old connection lingers: the old one is closed. */
  private replaceEarlier(ready: AgentConnection): void {
    for (const other of this.connections) {
      if (
        other !== ready &&
        other.agentId === ready.agentId &&
        other.auth.privateLocationId === ready.auth.privateLocationId
      ) {
        other.close(CLOSE_CODES.replaced, 'replaced by a newer connection of the same agent');
      }
    }
    void ready.dispatch();
  }

  private nudge(queue: string): void {
    for (const connection of this.connections) {
      if (connection.ready && queueKey(connection.auth.accountId, connection.auth.location) === queue) {
        void connection.dispatch();
      }
    }
  }

  private cancelLocally(runId: string): void {
    for (const connection of this.connections) if (connection.holds(runId)) connection.sendCancel(runId);
  }

  private revokeKey(keyId: string): void {
    for (const connection of this.connections) if (connection.auth.keyId === keyId) connection.revoked();
  }

  /** Cancels asked for on any replica reach the agents connected here. */
  private async forwardCancels(): Promise<void> {
    const ready = [...this.connections].filter((c) => c.ready && c.agentId);
    if (ready.length === 0) return;
    const requests = await pendingCancels(this.deps.db, [...new Set(ready.map((c) => c.agentId as string))]);
    for (const request of requests) {
      for (const connection of ready) {
        if (
          connection.agentId === request.agent_id &&
          connection.auth.accountId === request.account_id &&
          connection.auth.location === request.location
        ) {
          connection.sendCancel(request.id);
        }
      }
    }
  }
}

/** The answer to an agent that connects while this server stops. */
const SHUTTING_DOWN = new ApiError(
  503,
  'The control plane is shutting down',
  { retryable: true },
  { 'Retry-After': '1' },
);

/** Answers a refused upgrade with the API's error body, before any WebSocket exists. */
function reject(socket: Duplex, error: unknown): void {
  const apiError = error instanceof ApiError ? error : new ApiError(500, 'Internal server error');
  const body = JSON.stringify(errorBody(apiError.statusCode, apiError.message, apiError.attributes));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...apiError.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode] ?? 'Error'}\r\n${head}\r\n${body}`,
  );
}
