/**
 * One kept-alive connection speaking just enough HTTP/1.1 for the bench's own timed
 * clients: a request written whole, one at a time, and its response framed by
 * Content-Length (which the gateway always sends). It costs a fraction of fetch's CPU,
 * which matters twice over: a latency measured around a request should be the server's
 * time, not the client library's, and a client running in the server's own process (the
 * event-delivery sender) would otherwise spend that CPU on the server's event loop.
 */
import { connect, type Socket } from 'node:net';

export interface WireReply {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Where the reply at the start of `buffered` is, once its headers are in (undefined before). */
export function replyFrame(buffered: Buffer): { status: number; bodyStart: number; bodyEnd: number } | undefined {
  const headerEnd = buffered.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = buffered.toString('latin1', 0, headerEnd);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (!length) throw new Error(`a reply without content-length: ${head}`);
  const bodyStart = headerEnd + HEADER_END.length;
  return { status: Number(head.slice(9, 12)), bodyStart, bodyEnd: bodyStart + Number(length[1]) };
}

/** The bytes of one request to `base`'s host, with a Content-Length for a body. */
export function wireRequest(base: URL, method: string, path: string, headers: Record<string, string> = {}, body?: string): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${base.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
}

export class WireClient {
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (reply: WireReply) => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  static async connect(base: URL): Promise<WireClient> {
    const socket = connect({ host: base.hostname, port: Number(base.port), noDelay: true });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new WireClient(socket);
  }

  /** Writes `request` (see wireRequest) and resolves with its reply. */
  request(request: Buffer): Promise<WireReply> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('one request at a time'));
    const reply = new Promise<WireReply>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.socket.write(request);
    return reply;
  }

  close(): void {
    this.failure ??= new Error('closed');
    this.socket.end();
  }

  private read(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    let frame: ReturnType<typeof replyFrame>;
    try {
      frame = replyFrame(this.buffered);
    } catch (err) {
      return this.fail(err as Error);
    }
    if (!frame || this.buffered.length < frame.bodyEnd) return;
    const body = this.buffered.toString('utf8', frame.bodyStart, frame.bodyEnd);
    this.buffered = this.buffered.subarray(frame.bodyEnd);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ status: frame.status, body });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.failure);
  }
}
