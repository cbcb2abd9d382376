import { connect } from 'node:net';
import { expect, it } from '@jest/globals';
import { reservePort } from '../src/kit/listen';

/** Opens a connection and resolves once it is established, with a promise of its end. */
function connectTo(port: number): Promise<{ ended: Promise<void>; drop: () => void }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ ended, drop: () => socket.destroy() }));
    socket.once('error', reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise.then(() => 'done'), new Promise((r) => setTimeout(() => r('still waiting'), ms).unref())]);

it('turns away a client that connects while the port is held, so releasing it never waits on that client', async () => {
  const reservation = await reservePort({ host: '127.0.0.1', port: 0 });
  const client = await connectTo(reservation.listen.port);
  // The reservation drops the connection itself (the client would otherwise hold it open).
  const dropped = await within(client.ended, 2_000);
  const released = await within(reservation.release(), 2_000);
  client.drop();
  expect({ dropped, released }).toEqual({ dropped: 'done', released: 'done' });
});

it('refuses a port that is already held, in words naming PORT', async () => {
  const first = await reservePort({ host: '127.0.0.1', port: 0 });
  await expect(reservePort({ host: '127.0.0.1', port: first.listen.port })).rejects.toThrow(/in use by another process.*PORT/);
  await first.release();
});
