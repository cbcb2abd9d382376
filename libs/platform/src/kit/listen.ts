/**
 * The gateway's port is bound before the process writes anything (the data directory, the
 * store): a port in use, a privileged port or a HOST that is not this machine's stops the
 * start in one line while nothing has been touched. The reservation is held while the
 * services start and handed over just before the HTTP server listens.
 */
import { createServer, type AddressInfo } from 'node:net';
import type { ListenSettings } from './config';
import { ConfigurationError } from './engines';

export interface PortReservation {
  /** The address bound (with the port the system chose when PORT=0). */
  readonly listen: ListenSettings;
  /** Frees the port for the HTTP server, which listens on it at once. */
  release(): Promise<void>;
}

export async function reservePort(listen: ListenSettings): Promise<PortReservation> {
  // A client that connects while the services start (a browser retrying through a
  // restart) is turned away at once: a connection held open here would keep close() from
  // ever finishing, and the start would wait on it.
  const server = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: listen.host, port: listen.port, exclusive: true }, () => resolve());
    });
  } catch (err) {
    throw listenError(listen, err);
  }
  const { port } = server.address() as AddressInfo;
  let released: Promise<void> | undefined;
  return {
    listen: { host: listen.host, port },
    release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

/** A failed bind as the operator can act on it: which setting to change. */
export function listenError(listen: ListenSettings, err: unknown): Error {
  const where = `${listen.host}:${listen.port}`;
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new ConfigurationError(`port ${listen.port} on ${listen.host} is in use by another process: stop it, or set PORT to a free port`);
    case 'EACCES':
      return new ConfigurationError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges): set PORT to 1024 or above`);
    case 'EADDRNOTAVAIL':
      return new ConfigurationError(`HOST=${listen.host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0: every interface)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ConfigurationError(`HOST=${listen.host}: no such host name: set HOST to an address of this machine`);
    default:
      return new ConfigurationError(`cannot listen on ${where}: ${(err as Error)?.message ?? String(err)}`);
  }
}
