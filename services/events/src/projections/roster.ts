/**
 * The organization's users as the fan-out has folded them: whether each is active. A fact
 * announced to every active user names that audience (contracts' audiences.ts) instead of
 * listing it, and the queue registry resolves the name over its queues with this, so a
 * fact's fan-out costs a look-up per user with a queue, not a pass over the organization.
 *
 * The fan-out folds the people facts in store order, each before its own deliveries, so a
 * fact sees the users as they stood once it applied (a new user is among their own
 * fact's audience). It is seeded at start from the service's directory, which is replayed
 * to the store's head: a queue restored and replayed from an older position meets, for
 * users activated or deactivated in between, today's state until the replay passes that
 * change. Only deactivated users' queues can differ, and those answer nothing.
 */
import type { Fact } from '@teamchat/contracts';

export class Roster {
  private readonly inactive = new Set<number>();

  /** The users as a directory has them now. */
  seed(users: Iterable<{ _id: number; is_active: boolean }>): void {
    for (const user of users) this.set(user._id, user.is_active);
  }

  record(fact: Fact): void {
    switch (fact.type) {
      case 'UserCreated':
      case 'UserReactivated':
        this.set(fact.user_id, true);
        break;
      case 'UserDeactivated':
        this.set(fact.user_id, false);
        break;
      default:
    }
  }

  /**
   * A user it has not seen is taken as active: a queue is only registered by a user the
   * gateway authenticated, and polls of a deactivated user's queues are refused anyway.
   */
  isActive(userId: number): boolean {
    return !this.inactive.has(userId);
  }

  private set(userId: number, active: boolean): void {
    if (active) this.inactive.delete(userId);
    else this.inactive.add(userId);
  }
}
