/**
 * Fault injection for outgoing mail (issue 36, "no request is half applied"): the server
 * mails through an SMTP server that is down (connection refused), stalls past the
 * mailer's timeout, refuses (5xx on RCPT), or accepts the connection and drops it. Under
 * each, PATCH /settings with an email change, a new name and a personal setting, and
 * POST /invites, answer success promptly (well under the SMTP timeout) with every effect
 * in place and `email_delivery: "pending"`; the outbox record then ends in one defined
 * state: failed (with its attempts and the server's answer) or, once the server is back,
 * sent. Run against every mode by mail-faults.test.ts.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { callContract, type Bus } from '@teamchat/platform';
import { endpoints } from '@teamchat/contracts';
import { SMTPServer } from 'smtp-server';
import type { RunningServer } from './harness';
import { patch, suiteServer, waitFor, type Reply } from './suite-kit';

type Mode = 'refused' | 'stall' | 'drop' | 'refuse' | 'ok';

/**
 * One SMTP address whose behaviour the test switches: `refused` closes the listener;
 * `stall` accepts and never greets; `drop` greets, then drops the connection at the first
 * command; `refuse` and `ok` hand the connection to a real SMTP server, which refuses
 * every recipient with 550 or accepts the mail.
 */
export class FaultySmtp {
  mode: Mode = 'ok';
  readonly received: { to: string[]; data: string }[] = [];
  private front: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private constructor(
    readonly port: number,
    private readonly backend: SMTPServer,
    private readonly backendPort: number,
  ) {}

  static async start(): Promise<FaultySmtp> {
    let self: FaultySmtp | undefined;
    const backend = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // A connection still open when the test ends is cut after this long rather than 30 s.
      closeTimeout: 1_000,
      onRcptTo(address, _session, callback) {
        if (self?.mode === 'refuse') return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        return callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          self?.received.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', () => resolve()));
    const backendPort = (backend.server.address() as AddressInfo).port;
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    self = new FaultySmtp(port, backend, backendPort);
    await self.open();
    return self;
  }

  /** Switches behaviour; `refused` closes the port, anything else opens it again. */
  async set(mode: Mode): Promise<void> {
    this.mode = mode;
    if (mode === 'refused') await this.closeFront();
    else if (!this.front) await this.open();
  }

  private async open(): Promise<void> {
    const front = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      switch (this.mode) {
        case 'stall':
          return;
        case 'drop':
          socket.write('220 faulty.example ESMTP\r\n');
          socket.once('data', () => socket.destroy());
          return;
        default: {
          const upstream = createConnection({ port: this.backendPort, host: '127.0.0.1' });
          upstream.on('error', () => socket.destroy());
          // A pipe ends its destination only when its source ends, not when it is destroyed:
          // without this, a connection cut here (closeFront) stayed open to the backend, whose
          // close() then waited its own timeout (30 s, longer than the hook's) for it.
          socket.on('close', () => upstream.destroy());
          socket.pipe(upstream).pipe(socket);
        }
      }
    });
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.front = front;
  }

  private async closeFront(): Promise<void> {
    const front = this.front;
    this.front = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (front) await new Promise<void>((resolve) => front.close(() => resolve()));
  }

  async stop(): Promise<void> {
    await this.closeFront();
    await new Promise<void>((resolve) => this.backend.close(() => resolve()));
  }
}

/** The SMTP timeout the server runs with: every request must answer well within it. */
const SMTP_TIMEOUT_SECONDS = 2;

export const mailFaultEnv = (smtp: FaultySmtp): Record<string, string> => ({
  TEAMCHAT_SMTP_HOST: '127.0.0.1',
  TEAMCHAT_SMTP_PORT: String(smtp.port),
  TEAMCHAT_SMTP_SECURE: 'off',
  TEAMCHAT_SMTP_TIMEOUT_SECONDS: String(SMTP_TIMEOUT_SECONDS),
  // Waits of 0.25, 0.5, 1 and 2 s: about 4 s from the first attempt to the fifth.
  TEAMCHAT_SMTP_ATTEMPTS: '5',
  TEAMCHAT_SMTP_RETRY_SECONDS: '0.25',
});

export function mailFaultsSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`mail faults: requests stay whole and say where their mail is (${mode})`, () => {
    let smtp: FaultySmtp;
    const suite = suiteServer(async () => {
      smtp = await FaultySmtp.start();
      return start(mailFaultEnv(smtp));
    }, ['admin', 'member'], 180_000);
    let bus: Bus;
    let serial = 0;
    const unique = (prefix: string) => `${prefix}${++serial}x${Date.now() % 100000}@example.org`;

    beforeAll(async () => {
      bus = await suite.server.bus!();
    });
    afterAll(async () => {
      await smtp?.stop();
    });

    const mails = async () => (await callContract(bus, endpoints.accounts.mailOutbox, { params: { limit: 500 } })).value.mails;
    const mailTo = async (to: string) => (await mails()).find((m) => m.to === to);
    /** The record once `done` holds for it. */
    const recordOnce = (to: string, what: string, done: (m: NonNullable<Awaited<ReturnType<typeof mailTo>>>) => boolean, ms = 30_000) =>
      waitFor(what, async () => {
        const m = await mailTo(to);
        return m && done(m) ? m : undefined;
      }, ms);

    /** A request timed: it must answer well inside the SMTP timeout whatever the server does. */
    async function timed(request: () => Promise<Reply>): Promise<Reply> {
      const began = Date.now();
      const reply = await request();
      expect(Date.now() - began).toBeLessThan(SMTP_TIMEOUT_SECONDS * 1000 * 0.75);
      return reply;
    }

    /** PATCH /settings with an email change, a name and a personal setting: all of it applies, the mail is pending. */
    async function changeSettingsUnder(smtpMode: Mode): Promise<string> {
      await smtp.set(smtpMode);
      const member = suite.clients.member;
      const newEmail = unique(`settings-${smtpMode}-`);
      const fullName = `Fault ${smtpMode} ${serial}`;
      const enterSends = serial % 2 === 0;
      const reply = await timed(() => patch(member, '/settings', { email: newEmail, full_name: fullName, enter_sends: enterSends }));
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ result: 'success', msg: '', email_delivery: 'pending' });
      expect((await member.get('/users/me')).body.full_name).toBe(fullName);
      const settings = (await member.post('/register', { fetch_event_types: JSON.stringify(['user_settings']) })).body.user_settings;
      expect(settings.enter_sends).toBe(enterSends);
      // The email change is pending: the address is unchanged until the link is opened, and its mail is queued.
      expect((await member.get('/users/me')).body.email).not.toBe(newEmail);
      expect(await mailTo(newEmail)).toMatchObject({ purpose: 'email_change', state: 'pending' });
      return newEmail;
    }

    async function inviteUnder(smtpMode: Mode): Promise<string> {
      await smtp.set(smtpMode);
      const admin = suite.clients.admin;
      const invitee = unique(`invitee-${smtpMode}-`);
      const reply = await timed(() => admin.post('/invites', { invitee_emails: invitee, stream_ids: [] }));
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ result: 'success', msg: '', email_delivery: 'pending' });
      expect((await admin.get('/invites')).body.invites.map((i: { email?: string }) => i.email)).toContain(invitee);
      expect(await mailTo(invitee)).toMatchObject({ purpose: 'invitation', state: 'pending' });
      return invitee;
    }

    it('server down (connection refused): both requests applied whole; the mails fail after their five attempts', async () => {
      const email = await changeSettingsUnder('refused');
      const invitee = await inviteUnder('refused');
      for (const to of [email, invitee]) {
        const record = await recordOnce(to, `${to} given up`, (m) => m.state === 'failed');
        expect(record).toMatchObject({ attempts: 5, finished_at: expect.any(Number), last_error: expect.stringMatching(/ECONNREFUSED/) });
      }
      expect(smtp.received).toHaveLength(0);
    }, 60_000);

    it('server refusing (550 on RCPT): applied whole; the mails fail at once, permanently, with the answer recorded', async () => {
      const email = await changeSettingsUnder('refuse');
      const invitee = await inviteUnder('refuse');
      for (const to of [email, invitee]) {
        expect(await recordOnce(to, `${to} refused`, (m) => m.state === 'failed')).toMatchObject({ attempts: 1, response_code: 550 });
      }
    }, 60_000);

    it('server accepting then dropping the connection: applied whole; the mails fail after their attempts', async () => {
      const email = await changeSettingsUnder('drop');
      const invitee = await inviteUnder('drop');
      for (const to of [email, invitee]) {
        expect(await recordOnce(to, `${to} given up`, (m) => m.state === 'failed')).toMatchObject({ attempts: 5, last_error: expect.any(String) });
      }
    }, 60_000);

    it('server stalling past the timeout: applied whole; an attempt times out, and the mail is sent once the server answers', async () => {
      const email = await changeSettingsUnder('stall');
      const invitee = await inviteUnder('stall');
      for (const to of [email, invitee]) {
        expect(await recordOnce(to, `${to}'s first attempt timed out`, (m) => m.last_error !== null)).toMatchObject({ state: 'pending' });
      }
      await smtp.set('ok');
      for (const to of [email, invitee]) expect(await recordOnce(to, `${to} sent`, (m) => m.state === 'sent')).toMatchObject({ last_error: expect.any(String) });
      expect(smtp.received.map((r) => r.to).flat()).toEqual(expect.arrayContaining([email, invitee]));
    }, 60_000);

    it('a mail that failed while the server was down is delivered once it is back, link intact; the record keeps no body', async () => {
      const invitee = await inviteUnder('refused');
      await recordOnce(invitee, `${invitee}'s first attempt`, (m) => m.attempts >= 1 && m.last_error !== null);
      await smtp.set('ok');
      const sent = await recordOnce(invitee, `${invitee} sent`, (m) => m.state === 'sent');
      expect(sent.attempts).toBeGreaterThan(1);
      const delivered = smtp.received.find((r) => r.to.includes(invitee));
      // The body is quoted-printable: a soft line break may fall inside the link.
      expect(delivered?.data.replace(/=\r?\n/g, '')).toMatch(/\/join\/[^\s/]+\//);
      expect(JSON.stringify(sent)).not.toContain('/join/');
      // The link works: the invitation is pending and its page opens.
      const link = /(https?:\/\/\S+\/join\/\S+\/)/.exec(delivered!.data.replace(/=\r?\n/g, ''))![1]!;
      const key = /\/join\/([^/]+)\//.exec(link)![1]!;
      const status = await callContract(bus, endpoints.accounts.invitationStatus, { params: { key: decodeURIComponent(key) } });
      expect(status.value.status).toBe('pending');
    }, 60_000);

    it('resending an invitation under an outage answers success with the mail pending', async () => {
      const invitee = await inviteUnder('ok');
      await recordOnce(invitee, `${invitee} sent`, (m) => m.state === 'sent');
      await smtp.set('refused');
      const id = (await suite.clients.admin.get('/invites')).body.invites.find((i: { email?: string }) => i.email === invitee).id;
      const reply = await timed(() => suite.clients.admin.post(`/invites/${id}/resend`, {}));
      expect(reply.body).toEqual({ result: 'success', msg: '', email_delivery: 'pending' });
      await smtp.set('ok');
    }, 60_000);
  });
}
