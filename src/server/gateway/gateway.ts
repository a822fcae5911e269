import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { CLOSE_CODES, PROTOCOL_LIMITS } from '../../protocol/index.js';
import type { AuthContext } from '../auth/context.js';
import { ApiError } from '../common/errors.js';
import { pendingCancels } from '../queue/cancel.js';
import { type DueWake, queueKey } from '../queue/events.js';
import { AgentConnection, connectionAuthOf } from './connection.js';
import type { GatewayDeps } from './deps.js';

/** How long shutdown waits for agents to answer the close of their connections. */
const CLOSE_WAIT_MS = 1000;

/** The socket and first bytes of an upgrade request, kept on the request while the HTTP routes handle it. */
const PENDING_UPGRADE = Symbol('pending WebSocket upgrade');
type UpgradeRequest = IncomingMessage & { [PENDING_UPGRADE]?: { socket: Duplex; head: Buffer } };

/** Whether a request routed to the agent route asks for a WebSocket (and came through `Gateway.attach`). */
export function isUpgrade(request: IncomingMessage): boolean {
  return (request as UpgradeRequest)[PENDING_UPGRADE] !== undefined;
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/**
 * The agent side of docs/protocol.md: WebSocket connections of agents on this server, fed with runs from the
 * queue, told to cancel, and closed when their key is revoked. Runs enqueued on other replicas are found by each
 * connection's poll, cancels asked for there by the server's sweeps (`forwardCancels`).
 */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: PROTOCOL_LIMITS.maxMessageBytes });
  private readonly connections = new Set<AgentConnection>();
  private readonly listeners: [
    event: 'enqueued' | 'ahead' | 'cancel' | 'key-revoked',
    fn: (value: string) => void,
  ][];
  private readonly onDue = (queue: string, wake: DueWake) =>
    this.nudge(queue, (connection) => connection.dispatchDue(wake));
  /** Set when stop() begins: agents that connect from then on are turned away (they go to another replica). */
  private stopping = false;

  constructor(private readonly deps: GatewayDeps) {
    this.listeners = [
      ['enqueued', (queue) => this.nudge(queue, (connection) => connection.dispatch())],
      ['ahead', (queue) => this.nudge(queue, (connection) => connection.dispatchAhead())],
      ['cancel', (runId) => this.cancelLocally(runId)],
      ['key-revoked', (keyId) => this.revokeKey(keyId)],
    ];
  }

  /**
   * Routes WebSocket upgrades of `app`'s server through its HTTP routes, so an upgrade is authenticated, limited and
   * refused exactly like any request (fastify does not route upgrades itself); the agent route then calls
   * `accept`. Any other answer is written to the socket, which is closed after it.
   */
  attach(app: FastifyInstance): void {
    app.server.on('upgrade', (request: UpgradeRequest, socket: Duplex, head: Buffer) => {
      socket.on('error', destroyOnError);
      request[PENDING_UPGRADE] = { socket, head };
      const response = new ServerResponse(request);
      response.assignSocket(socket as Socket);
      response.on('finish', () => socket.destroy());
      app.routing(request, response);
    });
  }

  start(): void {
    for (const [event, fn] of this.listeners) this.deps.events.on(event, fn);
    this.deps.events.on('due', this.onDue);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const [event, fn] of this.listeners) this.deps.events.off(event, fn);
    this.deps.events.off('due', this.onDue);
    for (const connection of this.connections)
      connection.close(CLOSE_CODES.shuttingDown, 'server shutting down');
    // Give the agents a moment to answer the close, so their rows are marked disconnected before the store closes.
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const connection of this.connections) connection.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  /**
   * Completes the WebSocket upgrade of an authenticated request of `attach`: 403 for a key that is not a private
   * location's, 503 while this server stops (the agent goes to another replica).
   */
  accept(request: IncomingMessage, auth: AuthContext): void {
    const upgrade = (request as UpgradeRequest)[PENDING_UPGRADE];
    if (!upgrade) throw new Error('accept() needs a request routed by attach()');
    const connectionAuth = connectionAuthOf(auth);
    if (!connectionAuth) throw new ApiError(403, 'This key does not belong to a private location');
    if (this.stopping) throw SHUTTING_DOWN;
    upgrade.socket.removeListener('error', destroyOnError);
    this.wss.handleUpgrade(request, upgrade.socket, upgrade.head, (ws) => {
      const connection = new AgentConnection(ws, upgrade.socket, connectionAuth, this.deps, {
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

  private nudge(queue: string, dispatch: (connection: AgentConnection) => Promise<void>): void {
    for (const connection of this.connections) {
      if (connection.ready && queueKey(connection.auth.accountId, connection.auth.location) === queue) {
        void dispatch(connection);
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
  async forwardCancels(): Promise<void> {
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
