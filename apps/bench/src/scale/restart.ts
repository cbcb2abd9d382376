/**
 * Restarts of the server on the scale organization: from the process's start to its first
 * HTTP answer of any kind (503 while the services catch up) and to a served
 * `GET /messages`, then the first send after the restart, to a conversation the registry
 * holds and to one it does not (a group nobody wrote to yet: a new recipient id). Each
 * round is a restart of its own; the figures are the rounds' medians and maxima.
 */
import { latencyFigures } from '../latency';
import { startChild } from './child';
import { channelName, emailOf, type ScaleModel } from './model';
import { ReadClient } from './reads';

export interface RestartReport {
  rounds: number;
  firstAnswer: { p50: number; max: number };
  ready: { p50: number; max: number };
  firstSend: { p50: number; max: number };
  newConversation: { p50: number; max: number };
}

const middle = (values: number[]) => {
  const { p50, max } = latencyFigures(values);
  return { p50, max };
};

export async function measureRestarts(dataDir: string, model: ScaleModel, rounds: number): Promise<RestartReport> {
  const reader = emailOf(0);
  const firstAnswer: number[] = [];
  const ready: number[] = [];
  const firstSend: number[] = [];
  const newConversation: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const server = await startChild(dataDir, reader);
    try {
      firstAnswer.push(server.firstAnswerMs);
      ready.push(server.startupMs);
      const client = await ReadClient.login(server.api, reader);
      const tag = `${Date.now()}-${round}`;
      let started = performance.now();
      await client.call('POST', '/messages', { type: 'stream', to: channelName(model.readerBusiestChannel), topic: 'after a restart', content: `first send ${tag}` });
      firstSend.push(performance.now() - started);
      // Three others: the seed's direct messages have at most two, so this group is new
      // (its members drawn afresh each round, as a later run of the bench must find it new too).
      const others = new Set<number>();
      while (others.size < 3) others.add(1 + Math.floor(Math.random() * (model.sizes.users - 1)));
      started = performance.now();
      await client.call('POST', '/messages', { type: 'direct', to: JSON.stringify([...others].map(emailOf)), content: `a new conversation ${tag}` });
      newConversation.push(performance.now() - started);
    } finally {
      await server.stop();
    }
  }
  return { rounds, firstAnswer: middle(firstAnswer), ready: middle(ready), firstSend: middle(firstSend), newConversation: middle(newConversation) };
}
