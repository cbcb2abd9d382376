/**
 * What the convergence rows share (convergence-suite.ts runs them; each domain's rows are
 * in a convergence-<domain>.ts file): the row's shape, the context an action gets, and
 * the helpers several domains use.
 */
import type { Bus } from '@teamchat/platform';
import type { Client } from './harness';
import { invitationLink, onOrigin } from './suite-kit';

export type Who = 'owner' | 'member' | 'member2' | 'guest';

export interface Context {
  clients: Record<Who, Client>;
  ids: Record<Who, number>;
  /** A message of the member's in general, for the actions on a message. */
  messageId: number;
  channelId: (name: string) => Promise<number>;
  /** The server's bus, for what services do without an HTTP route (system bots' messages). */
  bus: () => Promise<Bus>;
  /** The server's origin (pages outside /api/v1) and data directory (the development mail outbox). */
  base: string;
  dataDir: string;
}

/** The invitation link last mailed to `email`, on this server's origin. */
export async function mailedLink(ctx: Context, email: string): Promise<string> {
  return onOrigin(await invitationLink(ctx.dataDir, email), ctx.base);
}

/** Fills in and submits the registration form a link opens, as a browser does (its cookie and token). */
export async function signUp(link: string, fields: Record<string, string>) {
  const page = await fetch(link);
  const token = /name="csrf_token" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(link, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ ...fields, csrf_token: token }) });
  await res.text();
  if (res.status !== 200) throw new Error(`sign-up refused (${res.status})`);
  return res;
}

export interface ActionRow {
  name: string;
  /** Who registers before and after (each one is a separate check). */
  observers: Who[];
  perform: (ctx: Context) => Promise<unknown>;
  /** Registration parameters, where the action's events depend on them. */
  register?: Record<string, unknown>;
}

export const stream = (to: string, topic: string, content: string) => ({ type: 'stream', to, topic, content });
let serial = 0;
/** A number no earlier call gave, so that every run of an action changes something. */
export const nextSerial = () => ++serial;
export const unique = (prefix: string) => `${prefix}-${nextSerial()}-${Date.now() % 100000}`;
