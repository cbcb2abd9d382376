/**
 * The test Client's check of every reply against the OpenAPI description
 * (openapi-replies.ts) can fail: a fake server answers what the description does not admit,
 * and the request that got it throws; the same members, as described, pass.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, OpenApiReplyError } from './harness';
import { openApiViolations } from './openapi-replies';

describe('the Client checks each reply against the OpenAPI description', () => {
  let fake: http.Server;
  let api: string;
  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/v1/users/me/alert_words') res.end(JSON.stringify({ result: 'success', msg: '', alert_words: 'not a list' }));
      else if (req.url === '/json/users/me/alert_words') res.end(JSON.stringify({ result: 'success', msg: '', alert_words: ['fine'] }));
      else {
        res.statusCode = 400;
        res.end(JSON.stringify({ result: 'error', msg: 'No.', code: 'NOT_A_CODE' }));
      }
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

  it('fails the request whose reply the description does not admit', async () => {
    await expect(new Client(`${api}/api/v1`).get('/users/me/alert_words')).rejects.toThrow(OpenApiReplyError);
    await expect(new Client(`${api}/api/v1`).get('/users/me/alert_words')).rejects.toThrow(/\/alert_words must be array/);
    // An error envelope with a code the description does not list.
    await expect(new Client(`${api}/api/v1`).post('/messages', {})).rejects.toThrow(/\/code must be equal to one of the allowed values/);
  });

  it('passes a reply as described (the web client\'s /json path is the same route)', async () => {
    const { body } = await new Client(`${api}/json`).get('/users/me/alert_words');
    expect(body.alert_words).toEqual(['fine']);
  });

  it('prefers a literal path to a parameter, and says nothing of paths no route serves', () => {
    const reply = { result: 'success', msg: '' };
    // GET /users/me is the caller's own profile, not GET /users/{user_id_or_email}: its members differ.
    expect(openApiViolations('GET', 'http://h/api/v1/users/me', 200, reply).join()).toMatch(/user_id/);
    expect(openApiViolations('GET', 'http://h/api/v1/no/such/route', 200, reply)).toEqual([]);
  });
});
