/**
 * A channel's settings a person changes for themselves: color, pinned, muted, and the
 * per-channel notification settings (each "as in my settings", on or off). Every change
 * is sent at once (POST /users/me/subscriptions/properties); the dialog shows the value
 * the server's event brings back, and a refusal under the control that was changed.
 */
import { useState } from 'preact/hooks';
import { describeError } from './api';
import { channelApi, type SubscriptionProperty } from './channel-api';
import { DialogButtons, Modal } from './message-dialogs';
import type { ClientStore } from './store';

const NOTIFICATIONS: { property: SubscriptionProperty; label: string }[] = [
  { property: 'desktop_notifications', label: 'Desktop notifications' },
  { property: 'audible_notifications', label: 'Sound notifications' },
  { property: 'push_notifications', label: 'Mobile notifications' },
  { property: 'email_notifications', label: 'Email notifications' },
  { property: 'wildcard_mentions_notify', label: 'Notify for @all mentions' },
];

type Subscription = Record<string, unknown> & { stream_id: number; name: string; color: string; is_muted: boolean; pin_to_top: boolean; description?: string };

export function ChannelSettingsDialog({ store, streamId, onClose }: { store: ClientStore; streamId: number; onClose: () => void }) {
  const sub = ((store.state.subscriptions ?? []) as Subscription[]).find((s) => s.stream_id === streamId);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [leaving, setLeaving] = useState(false);
  // What was asked, shown until the server's event brings it (a checkbox must not spring back meanwhile).
  const [asked, setAsked] = useState<Partial<Record<SubscriptionProperty, unknown>>>({});
  if (!sub) {
    return (
      <Modal title="Channel settings" onClose={onClose}>
        <p>You are not subscribed to this channel any more.</p>
        <DialogButtons onClose={onClose} />
      </Modal>
    );
  }
  const set = async (property: SubscriptionProperty, value: unknown) => {
    setErrors((e) => ({ ...e, [property]: '' }));
    setAsked((a) => ({ ...a, [property]: value }));
    try {
      await channelApi.setProperty(streamId, property, value);
    } catch (e) {
      setAsked(({ [property]: _dropped, ...rest }) => rest);
      setErrors((all) => ({ ...all, [property]: `Not changed: ${describeError(e)}` }));
    }
  };
  const valueOf = (property: SubscriptionProperty) => (property in asked ? asked[property] : sub[property]);
  const errorOf = (key: string) =>
    errors[key] ? (
      <p class="error field-error" role="alert" id={`sub-${key}-error`}>
        {errors[key]}
      </p>
    ) : null;
  const leave = async () => {
    setLeaving(true);
    setErrors((e) => ({ ...e, leave: '' }));
    try {
      await channelApi.leave(sub.name);
      onClose();
    } catch (e) {
      setErrors((all) => ({ ...all, leave: `You are still subscribed: ${describeError(e)}` }));
      setLeaving(false);
    }
  };
  return (
    <Modal title={`#${sub.name} settings`} onClose={onClose}>
      <div class="settings-form">
        {sub.description && <p class="muted">{sub.description}</p>}
        <label class="field inline">
          <span>Color</span>
          <input type="color" value={valueOf('color') as string} aria-describedby="sub-color-error" onChange={(e) => void set('color', e.currentTarget.value)} />
          <span class="swatch" style={{ background: sub.color }} aria-hidden="true" />
        </label>
        {errorOf('color')}
        <label class="field check">
          <input type="checkbox" checked={valueOf('pin_to_top') === true} onChange={(e) => void set('pin_to_top', e.currentTarget.checked)} /> Pin to the top of the channel list
        </label>
        {errorOf('pin_to_top')}
        <label class="field check">
          <input type="checkbox" checked={valueOf('is_muted') === true} onChange={(e) => void set('is_muted', e.currentTarget.checked)} /> Mute this channel (its messages leave the combined feed and the unread counts)
        </label>
        {errorOf('is_muted')}
        <fieldset class="notifications">
          <legend>Notifications</legend>
          {NOTIFICATIONS.map(({ property, label }) => {
            const value = valueOf(property);
            const current = value === true ? 'on' : value === false ? 'off' : 'default';
            return (
              <div key={property}>
                <label class="field inline">
                  <span>{label}</span>
                  <select value={current} onChange={(e) => void set(property, e.currentTarget.value === 'default' ? null : e.currentTarget.value === 'on')}>
                    <option value="default">As in my settings</option>
                    <option value="on">On</option>
                    <option value="off">Off</option>
                  </select>
                </label>
                {errorOf(property)}
              </div>
            );
          })}
        </fieldset>
        {errorOf('leave')}
        <div class="dialog-buttons">
          <button type="button" class="danger" disabled={leaving} onClick={leave}>
            Leave #{sub.name}
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </Modal>
  );
}
