/**
 * kill -9 right after a lone write is acknowledged. A single client's send is answered
 * within about one fsync, with no commit window or hand-off left to wait for; the
 * acknowledgement must still mean that the write is on disk. Each write below (a channel
 * message, a direct message, a content edit, a star) is followed, in the same turn as its
 * reply arrives, by a SIGKILL of the whole embedded server; the restarted server must
 * show it.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbeddedProcess, type ServerProcess } from './harness';
import { scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();

/** One acknowledged write and what the restarted server must show of it. */
interface Step {
  name: string;
  write(sender: Client, reader: Client, state: { messageId?: number; recipientId: number }): Promise<{ status: number; body: Record<string, any> }>;
  check(sender: Client, reader: Client, state: { messageId?: number; recipientId: number }, written: Record<string, any>): Promise<void>;
}

const STEPS: Step[] = [
  {
    name: 'a channel message',
    write: (sender) => sender.post('/messages', { type: 'stream', to: 'general', topic: 'lone', content: 'lone channel send' }),
    async check(sender, _reader, state, written) {
      state.messageId = written.id as number;
      const { body } = await sender.get(`/messages/${written.id}`);
      expect(body.raw_content).toBe('lone channel send');
    },
  },
  {
    name: 'a direct message',
    write: (sender, _reader, { recipientId }) => sender.post('/messages', { type: 'direct', to: [recipientId], content: 'lone direct send' }),
    async check(_sender, reader, _state, written) {
      const { body } = await reader.get(`/messages/${written.id}`);
      expect(body.raw_content).toBe('lone direct send');
    },
  },
  {
    name: 'a content edit',
    write: (sender, _reader, { messageId }) => sender.request('PATCH', `/messages/${messageId}`, { content: 'lone edit' }),
    async check(sender, _reader, { messageId }) {
      const { body } = await sender.get(`/messages/${messageId}`);
      expect(body.raw_content).toBe('lone edit');
    },
  },
  {
    name: 'a star',
    write: (_sender, reader, { messageId }) => reader.post('/messages/flags', { messages: [messageId], op: 'add', flag: 'starred' }),
    async check(_sender, reader, { messageId }) {
      const { body } = await reader.get(`/messages/${messageId}`);
      expect(body.message.flags).toContain('starred');
    },
  },
];

describe('a lone acknowledged write survives kill -9 right after its reply (embedded)', () => {
  it('shows each write after the restart: channel send, direct send, edit, star', async () => {
    const dataDir = newDataDir();
    let server: ServerProcess = await startEmbeddedProcess(dataDir);
    try {
      let sender = await Client.login(server.api, 'member@example.com');
      let reader = await Client.login(server.api, 'member2@example.com');
      const { body: me } = await reader.get('/users/me');
      const state: { messageId?: number; recipientId: number } = { recipientId: me.user_id as number };
      for (const step of STEPS) {
        const { status, body } = await step.write(sender, reader, state);
        // The kill is sent in the turn the reply was read in: nothing after the
        // acknowledgement gets a chance to finish the write.
        const killed = server.kill();
        expect({ step: step.name, status, result: body.result }).toEqual({ step: step.name, status: 200, result: 'success' });
        await killed;
        server = await startEmbeddedProcess(dataDir);
        sender = new Client(server.api, sender.email, sender.apiKey);
        reader = new Client(server.api, reader.email, reader.apiKey);
        await step.check(sender, reader, state, body);
      }
    } finally {
      await server.stop();
    }
  }, 240_000);
});
