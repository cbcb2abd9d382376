/**
 * The data set the read lines measure: MESSAGES messages across CHANNELS channels and
 * CHANNELS × TOPICS_PER_CHANNEL topics, sent through the services' bus endpoints (the same
 * command path as POST /messages, without HTTP).
 */
import { endpoints, type Actor } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import type { EmbeddedServer } from '@teamchat/server';
import { CHANNELS, TOPICS_PER_CHANNEL } from './settings';

const SEED_CONCURRENCY = 64;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

/**
 * Channels bench-00 … bench-19, everyone subscribed. Also returns the store position of
 * the last one: messaging (on its own thread) has seen the channels once it reaches it.
 */
export async function createChannels(server: EmbeddedServer, userIds: number[]): Promise<{ names: string[]; after: number }> {
  const names = Array.from({ length: CHANNELS }, (_, i) => `bench-${String(i).padStart(2, '0')}`);
  let after = 0;
  for (const name of names) {
    const { position } = await callContract(server.bus, endpoints.channels.createChannel, { params: { name, subscribers: userIds } });
    after = Math.max(after, position ?? 0);
  }
  return { names, after };
}

/** Sends `count` messages round-robin over every channel and topic, from two senders. */
export async function seed(server: EmbeddedServer, senders: Actor[], { names: channels, after }: { names: string[]; after: number }, count: number): Promise<number> {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const channel = channels[i % CHANNELS]!;
      const topic = `topic-${Math.floor(i / CHANNELS) % TOPICS_PER_CHANNEL}`;
      const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} message ${i}`;
      await callContract(
        server.bus,
        endpoints.messaging.sendMessage,
        { actor: senders[i % senders.length]!, after, params: { type: 'stream', to: channel, topic, content: words, read_by_sender: true } },
        { timeoutMs: 60_000 },
      );
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return (count / (Date.now() - started)) * 1000;
}
