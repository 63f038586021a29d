// HTTP/1.1 by hand over net sockets, for the tests that need what fetch hides: a connection kept
// open and watched, half a request, a whole body written before anything is read.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One connection: write text, read answers one by one, see when the server closed it. */
export class RawConnection {
  private buffer = '';
  private waiters: (() => void)[] = [];
  /** Resolves once the connection has closed (either side), with any error it saw. */
  readonly closed: Promise<string | undefined>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      let error: string | undefined;
      socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      socket.on('close', () => {
        this.isClosed = true;
        this.wake();
        resolve(error);
      });
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** A GET with the key, keep-alive. */
  get(path: string, key: string): void {
    this.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: ${key}\r\n\r\n`);
  }

  /** The next whole answer (Content-Length framed), or an error when the connection closes first or `timeoutMs` passes. */
  async response(timeoutMs = 5_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.take();
      if (parsed) return parsed;
      if (this.isClosed)
        throw new Error(`the connection closed before an answer; read: ${JSON.stringify(this.buffer.slice(0, 200))}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no answer within ${timeoutMs} ms; read: ${JSON.stringify(this.buffer.slice(0, 200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  private take(): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.buffer.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.slice(end + 4, end + 4 + length);
    this.buffer = this.buffer.slice(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }

  /** Resolves true once the connection is closed, false if it is still open after `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    if (this.isClosed) return true;
    return Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
    ]);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface RawAnswer {
  /** The status line's code, or undefined when no answer was read. */
  status?: number;
  text: string;
  /** The socket error the client saw, if any (EPIPE, ECONNRESET: the broken pipe). */
  error?: string;
  /** Bytes of the request the client managed to write. */
  written: number;
}

/**
 * Writes `head` and `body` on a fresh connection and only once all of it was written (handed to the
 * kernel) starts reading, until the server closes. What arrives earlier waits in the paused socket,
 * exactly as for a client that reads only after sending everything. Resolves with what was read and
 * any error the socket saw. The body goes in `chunkSize` pieces, each after the last was taken.
 */
export function writeAllThenRead(
  port: number,
  head: string,
  body: Buffer,
  options: { timeoutMs?: number; chunkSize?: number } = {},
): Promise<RawAnswer> {
  const chunkSize = options.chunkSize ?? body.length;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let error: string | undefined;
    let written = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      resolve({ status: match ? Number(match[1]) : undefined, text, error, written });
    };
    const timer = setTimeout(() => {
      error ??= 'timed out';
      finish();
    }, options.timeoutMs ?? 20_000);
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
      finish();
    });
    socket.on('close', finish);
    socket.on('end', finish);
    socket.pause();
    socket.write(head);
    const next = (offset: number) => {
      if (socket.destroyed) return;
      if (offset >= body.length) {
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.resume();
        return;
      }
      const piece = body.subarray(offset, offset + chunkSize);
      socket.write(piece, (e) => {
        if (e) return;
        written += piece.length;
        next(offset + piece.length);
      });
    };
    next(0);
  });
}
