import type { ActorChanged } from '@teamchat/contracts';
import { actorChangesAppended } from '../src/projections/actor-changes';

describe('actor changes told at append', () => {
  const fact = (type: string, user_id: number) => ({ id: `${type}-${user_id}`, type, data: { type, user_id } });

  it('publishes one notice per fact that changes a credential, with that fact\'s position', () => {
    const told: ActorChanged[] = [];
    const observe = actorChangesAppended((changed) => told.push(changed));
    observe('organization', [fact('UserDeactivated', 7), fact('UserFullNameChanged', 8), fact('MessageSent', 9), fact('BotApiKeyRegenerated', 10)], {
      nextRevision: 3,
      positions: [101, 102, 103, 104],
    });
    expect(told).toEqual([
      { user_id: 7, position: 101 },
      { user_id: 8, position: 102 },
      { user_id: 10, position: 104 },
    ]);
  });

  it('does not fail a stored command when the bus refuses the notice (closing)', () => {
    const observe = actorChangesAppended(() => {
      throw new Error('closing');
    });
    expect(() => observe('organization', [fact('UserRoleChanged', 7)], { nextRevision: 0, positions: [5] })).not.toThrow();
  });
});
