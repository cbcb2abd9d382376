/**
 * The large-channel lines: CROWD members subscribed to a new channel in one request each
 * (the bulk path of an administrator adding a department to a channel), then sending to a
 * channel of that many.
 */
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import type { EmbeddedServer } from '@teamchat/server';
import { http, type Person } from './http';
import { latencyFigures } from './latency';
import { profiled } from './profile';
import { measure, sendTarget, type Row } from './throughput';

/** Users of the large-channel benchmarks, and how many channels they are subscribed to in one request each. */
const CROWD = 1000;
const CROWD_SUBSCRIBE_RUNS = 10;

export interface CrowdReport {
  /** Milliseconds per POST /users/me/subscriptions that subscribes CROWD users to a new channel. */
  subscribeP50: number;
  subscribeMax: number;
  /** Server CPU per subscription made, in µs. */
  subscribeCpuPerSubscriber: number;
  /** Sending to crowd-0 (CROWD subscribers and the sender). */
  send: Row | undefined;
}

/** Creates CROWD members through the bus (no HTTP: the figures are of what follows). */
async function createCrowd(server: EmbeddedServer): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < CROWD; i++) {
    const { value } = await callContract(server.bus, endpoints.accounts.createUser, { params: { email: `crowd-${i}@example.com`, full_name: `Crowd ${i}`, role: 400 } });
    ids.push(value.user_id);
  }
  return ids;
}

/** Subscribing the crowd to a channel in one request (creating the channel, principals by id), CROWD_SUBSCRIBE_RUNS times, one at a time. */
async function measureCrowdSubscribe(api: string, actor: Person, crowd: number[]): Promise<Omit<CrowdReport, 'send'>> {
  const durations: number[] = [];
  const before = process.cpuUsage();
  for (let i = 0; i < CROWD_SUBSCRIBE_RUNS; i++) {
    const started = performance.now();
    const reply = await http(`${api}/users/me/subscriptions`, {
      method: 'POST',
      headers: { authorization: actor.authorization },
      body: new URLSearchParams({ subscriptions: JSON.stringify([{ name: `crowd-${i}` }]), principals: JSON.stringify(crowd) }),
    });
    durations.push(performance.now() - started);
    const subscribed = Object.keys(reply.subscribed as Record<string, unknown>).length;
    if (subscribed < crowd.length) throw new Error(`crowd subscribe: ${subscribed} of ${crowd.length} subscribed`);
  }
  const cpu = process.cpuUsage(before);
  const { p50, max } = latencyFigures(durations);
  return {
    subscribeP50: p50,
    subscribeMax: max,
    subscribeCpuPerSubscriber: (cpu.user + cpu.system) / (CROWD_SUBSCRIBE_RUNS * crowd.length),
  };
}

export async function measureCrowd(server: EmbeddedServer, api: string, member: Person): Promise<CrowdReport> {
  const crowd = await createCrowd(server);
  const subscribe = await profiled('crowd subscribe', () => measureCrowdSubscribe(api, member, crowd));
  // crowd-0 now has CROWD subscribers (and the member sending).
  const send = await measure('POST /messages (crowd)', sendTarget(api, member, 'crowd-0', 'A message to a thousand people.'));
  return { ...subscribe, send };
}

export function crowdLine(report: CrowdReport): string {
  const { send } = report;
  return (
    `subscribing ${CROWD} users to a new channel in one request: p50 ${report.subscribeP50.toFixed(0)} ms, max ${report.subscribeMax.toFixed(0)} ms ` +
    `(${CROWD_SUBSCRIBE_RUNS} requests), server CPU ${report.subscribeCpuPerSubscriber.toFixed(1)} µs per subscription` +
    (send ? `; sending to a channel of ${CROWD + 1} subscribers: ${send.result.requests.average.toFixed(0)} messages/s, ${(send.cpuPerRequest / (CROWD + 1)).toFixed(2)} µs of server CPU per recipient` : '')
  );
}
