import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { afterIoPoll } from '../../../src/executors/run/after-io-poll.js';

let server: Server;
let client: Socket;
let serverSide: Socket;

beforeAll(async () => {
  server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  [serverSide] = (await accepted) as [Socket];
  await once(client, 'connect');
});

afterAll(() => {
  client.destroy();
  serverSide.destroy();
  server.close();
});

it('resolves only after the I/O that was ready when it was called has been handled', async () => {
  const order: string[] = [];
  const done = new Promise<void>((resolve) => {
    // In an I/O callback, as a lane is when its check's response arrives: what arrives meanwhile (here the
    // server's second write, in the kernel before the callback returns) is handled before the lane goes on.
    client.once('data', () => {
      client.once('data', () => order.push('second write read'));
      serverSide.write('second');
      void afterIoPoll().then(() => {
        order.push('resolved');
        resolve();
      });
    });
  });
  serverSide.write('first');
  await done;
  expect(order).toEqual(['second write read', 'resolved']);
});
