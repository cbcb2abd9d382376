import { instanceOfQueueId, instanceSubject, queueIdOn } from '../src/queue-ids';

describe('queue ids', () => {
  it('name their events instance in the distributed mode, and nothing in the embedded server', () => {
    expect(queueIdOn('events-1', 'abc')).toBe('events-1:abc');
    expect(queueIdOn(undefined, 'abc')).toBe('abc');
    expect(instanceOfQueueId('events-1:abc')).toBe('events-1');
    expect(instanceSubject('events.get_events', 'events-1')).toBe('events.get_events.events-1');
  });

  it.each([['abc'], [':abc'], ['a.b:abc'], ['a b:abc'], ['*:abc'], ['>:abc'], [`${'x'.repeat(41)}:abc`], [42], [undefined]])(
    'name no instance in %p (routed to any instance, which refuses it)',
    (id) => {
      expect(instanceOfQueueId(id)).toBeUndefined();
    },
  );
});
