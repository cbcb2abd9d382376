import { ApiError, endpoint, isApiError, type Actor } from '@teamchat/contracts';
import {
  AggregateRepository,
  callContract,
  describeZodIssue,
  InProcessBus,
  ReplyArena,
  ReplyMismatchError,
  serveContract,
  textOf,
  type ContractServerOptions,
  type EventStore,
} from '@teamchat/platform';
import pino from 'pino';
import { z } from 'zod';

const log = pino({ level: 'silent' });
const actor: Actor = { user_id: 7, email: 'a@example.com', full_name: 'A', role: 400, is_bot: false, client: 'test' };

const page = endpoint({
  service: 'messaging',
  subject: 'test.page',
  auth: false,
  params: z.object({}),
  reply: z.object({ found_newest: z.boolean() }),
});

const write = endpoint({
  service: 'messaging',
  subject: 'test.write',
  auth: true,
  params: z.object({ count: z.number().int() }),
  reply: z.object({ user_id: z.number().int() }),
});

/** Resolves to the ApiError a call is refused with. */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (err: unknown) => (isApiError(err) ? { code: err.code, status: err.status, msg: err.msg } : err),
  );

describe('serveContract and callContract', () => {
  const members = '{"messages":[{"content":"ünïcode ✔"}]}';

  // A bus that copies replies stands for any that serializes them (NATS).
  it.each([
    ['copies replies (as NATS serializes them)', true, 'string'],
    ['passes replies by value', false, 'object'],
  ])('hands pre-serialized bytes over a bus that %s as %s', async (_label, copyReplies, kind) => {
    const bus = new InProcessBus({ copyReplies });
    await serveContract({ bus, log }, page, async () => ({ value: { found_newest: true }, json: Buffer.from(members) }));
    const { value, json } = await callContract(bus, page, { params: {} });
    expect(value).toEqual({ found_newest: true });
    expect(typeof json).toBe(kind);
    expect(Buffer.from(json as string | Uint8Array).toString()).toBe(members);
    await bus.close();
  });

  it('hands several objects’ bytes over as they are where the bus carries bytes, and as one object’s text where it does not', async () => {
    const pieces = [Buffer.from('{"realm_users":[{"full_name":"Zoë"}]}'), Buffer.from('{}'), Buffer.from('{"unread_msgs":{"count":2}}')];
    const joined = { realm_users: [{ full_name: 'Zoë' }], unread_msgs: { count: 2 } };
    for (const copyReplies of [false, true]) {
      const bus = new InProcessBus({ copyReplies });
      await serveContract({ bus, log }, page, async () => ({ value: { found_newest: true }, json: pieces }));
      const { json } = await callContract(bus, page, { params: {} });
      if (copyReplies) {
        expect(typeof json).toBe('string');
        expect(JSON.parse(json as string)).toEqual(joined);
      } else {
        // The same memory: nothing was joined or copied on the way.
        expect(json).toBe(pieces);
      }
      await bus.close();
    }
    expect(textOf([Buffer.from('{}')])).toBe('{}');
  });

  it('passes the parts a handler sends ahead of its reply to a caller that takes them and does not check replies', async () => {
    const first = Buffer.from('{"realm_users":[]}');
    const handler = async (_params: object, { sendPart }: { sendPart?: (json: string | Uint8Array) => void }) => {
      if (sendPart) sendPart(first);
      return { value: { found_newest: true }, json: sendPart ? '{"unread_msgs":{}}' : '{"realm_users":[],"unread_msgs":{}}' };
    };
    for (const [copyReplies, checkReply, takesParts] of [
      [false, false, true],
      // Parts are never checked, so a checking caller gets everything in the reply.
      [false, true, false],
      // Parts travel only by value.
      [true, false, false],
    ] as const) {
      const bus = new InProcessBus({ copyReplies });
      await serveContract({ bus, log }, page, handler);
      const parts: unknown[] = [];
      const { json } = await callContract(bus, page, { params: {} }, { checkReply, onPart: (part) => parts.push(part) });
      expect(parts).toEqual(takesParts ? [first] : []);
      if (takesParts) expect(parts[0]).toBe(first);
      expect(JSON.parse(Buffer.from(json as string | Uint8Array).toString())).toEqual(takesParts ? { unread_msgs: {} } : { realm_users: [], unread_msgs: {} });
      await bus.close();
    }
  });

  it('gives back bytes lent from an arena once they are text, or refused as too large, or fail their contract', async () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 4096, headRoom: 64 });
    const lent = (text: string) => {
      const bytes = arena.lease(Buffer.byteLength(text))!;
      bytes.write(text);
      return bytes;
    };
    // A bus that carries no bytes: the reply crosses as text and the slot is free at once.
    const copying = new InProcessBus();
    await serveContract({ bus: copying, log }, page, async () => ({ value: { found_newest: true }, json: lent(members) }));
    expect((await callContract(copying, page, { params: {} })).json).toBe(members);
    expect(arena.lent()).toBe(0);
    await copying.close();
    // A reply too large for the bus becomes an error; its bytes go back.
    const small = new InProcessBus({ copyReplies: false, maxPayload: 64 });
    await serveContract({ bus: small, log }, page, async () => ({ value: { found_newest: true }, json: lent(members) }));
    expect(await refusal(callContract(small, page, { params: {} }))).toMatchObject({ code: 'BAD_REQUEST' });
    expect(arena.lent()).toBe(0);
    await small.close();
    // A reply that does not match its contract: the requester refuses it and gives the bytes back.
    const byValue = new InProcessBus({ copyReplies: false });
    await byValue.serve(page.subject, async () => ({ ok: true, value: { found_newest: 'yes' }, json: lent(members) }) as never);
    await expect(callContract(byValue, page, { params: {} })).rejects.toBeInstanceOf(ReplyMismatchError);
    expect(arena.lent()).toBe(0);
    await byValue.close();
  });

  it('refuses invalid parameters and a missing actor before the handler runs', async () => {
    const bus = new InProcessBus();
    const seen: number[] = [];
    await serveContract({ bus, log }, write, async (params, { actor: caller }) => {
      seen.push(params.count);
      return { value: { user_id: caller.user_id } };
    });
    expect(await refusal(callContract(bus, write, { actor, params: { count: 'x' as unknown as number } }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      msg: expect.stringContaining("'count'"),
    });
    expect(await refusal(callContract(bus, write, { params: { count: 1 } }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      msg: 'Authentication required',
    });
    expect(seen).toEqual([]);
    expect((await callContract(bus, write, { actor, params: { count: 2 } })).value).toEqual({ user_id: 7 });
    expect(seen).toEqual([2]);
    await bus.close();
  });

  it('tells a parameter of the wrong type from a missing one (zod 4 reports no input unless asked)', () => {
    const schema = z.object({ flag: z.boolean().optional(), count: z.number().int(), ids: z.array(z.number()).optional() });
    const firstIssue = (value: unknown, reportInput = false) => schema.safeParse(value, { reportInput }).error!.issues[0];
    expect(describeZodIssue(firstIssue({ count: 1, flag: '1.5' }))).toBe("Invalid 'flag': Invalid input: expected boolean, received string");
    expect(describeZodIssue(firstIssue({ count: 'abc' }))).toMatch(/^Invalid 'count': /);
    expect(describeZodIssue(firstIssue({ count: null }))).toMatch(/^Invalid 'count': /);
    expect(describeZodIssue(firstIssue({ count: 'abc' }, true))).toMatch(/^Invalid 'count': /);
    expect(describeZodIssue(firstIssue({}))).toBe("Missing 'count' argument");
    expect(describeZodIssue(firstIssue({}, true))).toBe("Missing 'count' argument");
    // An element of a list is never "missing": it is invalid where it stands.
    expect(describeZodIssue(firstIssue({ count: 1, ids: [1, undefined] }))).toBe("Invalid 'ids[1]': Invalid input: expected number, received undefined");
  });

  it("waits for the caller's last write before the handler and for its own write after", async () => {
    const bus = new InProcessBus();
    const steps: string[] = [];
    const readModels: ContractServerOptions['readModels'] = {
      waitFor: async (position) => {
        steps.push(`wait ${position}`);
      },
    };
    await serveContract({ bus, log, readModels }, write, async () => {
      steps.push('handle');
      return { value: { user_id: 1 }, position: 42 };
    });
    const { position } = await callContract(bus, write, { actor, after: 40, params: { count: 1 } });
    expect(position).toBe(42);
    expect(steps).toEqual(['wait 40', 'handle', 'wait 42']);
    await bus.close();
  });

  it('answers a write once durable when the caller will wait for its position itself (whenDurable)', async () => {
    const bus = new InProcessBus();
    const steps: string[] = [];
    // Read models that never catch up: a reply that waited for them would never come.
    const readModels: ContractServerOptions['readModels'] = {
      waitFor: (position) => {
        steps.push(`wait ${position}`);
        return new Promise<void>(() => undefined);
      },
    };
    await serveContract({ bus, log, readModels }, write, async () => {
      steps.push('handle');
      return { value: { user_id: 1 }, position: 42 };
    });
    const { position } = await callContract(bus, write, { actor, whenDurable: true, params: { count: 1 } });
    expect(position).toBe(42);
    expect(steps).toEqual(['handle']);
    // Without the flag the same write waits for its projection (and here times out).
    const waited = callContract(bus, write, { actor, params: { count: 1 } }, { timeoutMs: 200 });
    await expect(waited).rejects.toThrow();
    expect(steps).toEqual(['handle', 'handle', 'wait 42']);
    await bus.close();
  });

  describe('a refusal decided on read models behind the store', () => {
    /** Read models at `checkpoint` that learn of `head` when asked, applying it at once. */
    function lagging(checkpoint: number, head: number) {
      const model = {
        checkpoint,
        asked: [] as number[],
        waitFor: async () => undefined,
        caughtUpPast: async (since: number) => {
          model.asked.push(since);
          if (head <= since) return false;
          model.checkpoint = head;
          return true;
        },
      };
      return model;
    }
    /** A handler that refuses until the read models reach 5 (the user it names exists from there). */
    const serveLookup = async (bus: InProcessBus, readModels: ReturnType<typeof lagging>, before?: () => void) => {
      const calls: number[] = [];
      await serveContract({ bus, log, readModels }, write, async () => {
        calls.push(readModels.checkpoint);
        before?.();
        if (readModels.checkpoint < 5) throw new ApiError('BAD_REQUEST', 'No such user', 400);
        return { value: { user_id: 5 } };
      });
      return calls;
    };

    it('is decided again once the read models hold what the store held', async () => {
      const bus = new InProcessBus();
      const readModels = lagging(3, 5);
      const calls = await serveLookup(bus, readModels);
      expect((await callContract(bus, write, { actor, params: { count: 1 } })).value).toEqual({ user_id: 5 });
      expect(calls).toEqual([3, 5]);
      expect(readModels.asked).toEqual([3]);
      await bus.close();
    });

    it('stands when the store holds nothing more, and is decided once only', async () => {
      const bus = new InProcessBus();
      const readModels = lagging(3, 3);
      const calls = await serveLookup(bus, readModels);
      expect(await refusal(callContract(bus, write, { actor, params: { count: 1 } }))).toEqual({ code: 'BAD_REQUEST', status: 400, msg: 'No such user' });
      expect(calls).toEqual([3]);
      await bus.close();
    });

    it('stands without a second decision when a command append began meanwhile', async () => {
      const bus = new InProcessBus();
      const readModels = lagging(3, 5);
      const repository = new AggregateRepository(
        { append: () => new Promise(() => undefined) } as unknown as EventStore,
        { initial: () => 0, evolve: (n: number) => n + 1 },
      );
      // An append that begins while the handler runs (this request's or another's).
      const calls = await serveLookup(bus, readModels, () => void repository.create('s', [{ type: 'UserDeactivated', user_id: 1 } as never]));
      expect(await refusal(callContract(bus, write, { actor, params: { count: 1 } }))).toMatchObject({ msg: 'No such user' });
      expect(calls).toEqual([3]);
      expect(readModels.asked).toEqual([]);
      await bus.close();
    });

    it('stands without a second decision once the handler has sent parts of its reply', async () => {
      const bus = new InProcessBus({ copyReplies: false });
      const readModels = lagging(3, 5);
      const calls: number[] = [];
      await serveContract({ bus, log, readModels }, write, async (_params, { sendPart }) => {
        calls.push(readModels.checkpoint);
        sendPart?.('{"first":1}');
        if (readModels.checkpoint < 5) throw new ApiError('BAD_REQUEST', 'No such user', 400);
        return { value: { user_id: 5 } };
      });
      const parts: unknown[] = [];
      const refused = await refusal(callContract(bus, write, { actor, params: { count: 1 } }, { checkReply: false, onPart: (part) => parts.push(part) }));
      expect(refused).toMatchObject({ msg: 'No such user' });
      // Decided once: a second run would have sent its part again.
      expect(calls).toEqual([3]);
      expect(parts).toEqual(['{"first":1}']);
      await bus.close();
    });

    it('is not decided again for a failure that is not a refusal', async () => {
      const bus = new InProcessBus();
      const readModels = lagging(3, 5);
      let calls = 0;
      await serveContract({ bus, log, readModels }, write, async () => {
        calls++;
        throw new ApiError('SERVICE_UNAVAILABLE', 'Try again', 503);
      });
      expect(await refusal(callContract(bus, write, { actor, params: { count: 1 } }))).toMatchObject({ status: 503 });
      expect(calls).toBe(1);
      expect(readModels.asked).toEqual([]);
      await bus.close();
    });
  });

  it('answers a failing handler with the ApiError it threw, or a bare 500 that reveals nothing', async () => {
    const bus = new InProcessBus();
    let failure: unknown = new Error('secret detail');
    await serveContract({ bus, log }, write, async () => {
      throw failure;
    });
    expect(await refusal(callContract(bus, write, { actor, params: { count: 1 } }))).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      status: 500,
      msg: 'Internal server error',
    });
    failure = { code: 'PERMISSION_DENIED', status: 403, msg: 'No' };
    expect(await refusal(callContract(bus, write, { actor, params: { count: 1 } }))).toEqual({ code: 'PERMISSION_DENIED', status: 403, msg: 'No' });
    await bus.close();
  });

  it('checks the reply against the contract unless told not to', async () => {
    const bus = new InProcessBus();
    // A handler that drifted from its contract (the compiler would catch it; the bus may not).
    await bus.serve(page.subject, async () => ({ ok: true, value: { found_newest: 'yes' } }));
    const drifted = await callContract(bus, page, { params: {} }).catch((err: unknown) => err);
    expect(drifted).toBeInstanceOf(ReplyMismatchError);
    expect((drifted as ReplyMismatchError).message).toContain("'found_newest'");
    expect((await callContract(bus, page, { params: {} }, { checkReply: false })).value).toEqual({ found_newest: 'yes' });
    await bus.close();
  });

  it('checks members sent already serialized against the contract too, where it declares them', async () => {
    const bus = new InProcessBus();
    const listing = endpoint({
      service: 'messaging',
      subject: 'messaging.test_listing',
      auth: false,
      params: z.object({}),
      reply: z.object({ found_newest: z.boolean() }),
      serialized: z.object({ items: z.array(z.number()) }),
    });
    let json = '{"items":[1,2]}';
    await bus.serve(listing.subject, async () => ({ ok: true, value: { found_newest: true }, json }));
    expect((await callContract(bus, listing, { params: {} })).json).toBe(json);
    json = '{"items":["one"]}';
    const drifted = await callContract(bus, listing, { params: {} }).catch((err: unknown) => err);
    expect(drifted).toBeInstanceOf(ReplyMismatchError);
    expect((drifted as ReplyMismatchError).message).toContain("'items[0]'");
    expect((await callContract(bus, listing, { params: {} }, { checkReply: false })).json).toBe(json);
    await bus.close();
  });
});
