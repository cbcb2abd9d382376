import { joinMembers } from '../src/http/response';

const body = { result: 'success', msg: '', found_newest: true };
const members = '{"messages":[{"id":1,"content":"ünï ✔ \\"quoted\\""}],"history_limited":false}';
const expected = { ...body, ...(JSON.parse(members) as object) };

const parse = (payload: string | Buffer) => JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as unknown;

describe('joinMembers', () => {
  it('joins the gateway’s members and pre-serialized text into one object', () => {
    const joined = joinMembers(body, members);
    expect(typeof joined).toBe('string');
    expect(parse(joined)).toEqual(expected);
  });

  it('joins pre-serialized UTF-8 bytes into one buffer, whitespace around the braces allowed', () => {
    for (const text of [members, ` \n${members}\n`, `{ ${members.slice(1)}`]) {
      const joined = joinMembers(body, new TextEncoder().encode(text));
      expect(Buffer.isBuffer(joined)).toBe(true);
      expect(parse(joined)).toEqual(expected);
    }
  });

  it('adds nothing for an empty object, as text or bytes', () => {
    for (const empty of ['{}', '{ }']) {
      expect(parse(joinMembers(body, empty))).toEqual(body);
      expect(parse(joinMembers(body, new TextEncoder().encode(empty)))).toEqual(body);
    }
  });

  it('refuses bytes that are not an object, rather than send broken JSON', () => {
    expect(() => joinMembers(body, new TextEncoder().encode('[1]'))).toThrow('not a JSON object');
    expect(() => joinMembers(body, new Uint8Array())).toThrow('not a JSON object');
  });
});
