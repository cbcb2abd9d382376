/**
 * The person's settings: avatar (avatar-settings.tsx), full name, password, time format,
 * theme and notifications, each saved through PATCH /settings as it is changed (a name or
 * a password by its button).
 * What the server refuses is said in words under the field, and the field keeps what was
 * typed; what it takes comes back as an event (user_settings, realm_user) and the page
 * follows it, as every other page of the person does.
 *
 * Desktop notifications need the browser's permission: the button here asks for it (a
 * browser asks only in answer to a click).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describeError, json } from './api';
import { AvatarSetting } from './avatar-settings';
import { DialogButtons, Modal } from './message-dialogs';
import { notificationPermission, requestNotificationPermission } from './notifications';
import { ProfileFieldsSetting } from './profile-settings';
import type { ClientStore } from './store';

type Settings = Record<string, unknown>;

const updateSettings = (change: Settings) => json<unknown>('PATCH', '/settings', change);

/** One field's saving: busy, its refusal in words, or "Saved". */
function useSave() {
  const [state, setState] = useState<{ busy: boolean; error: string; saved: boolean }>({ busy: false, error: '', saved: false });
  const save = async (change: Settings, after?: () => void): Promise<boolean> => {
    setState({ busy: true, error: '', saved: false });
    try {
      await updateSettings(change);
      setState({ busy: false, error: '', saved: true });
      after?.();
      return true;
    } catch (e) {
      setState({ busy: false, error: `Not saved: ${describeError(e)}`, saved: false });
      return false;
    }
  };
  return { ...state, save };
}

function Outcome({ id, error, saved }: { id: string; error: string; saved: boolean }) {
  return (
    <p id={id} class={`field-outcome${error ? ' error' : ''}`} role={error ? 'alert' : 'status'}>
      {error || (saved ? 'Saved.' : '')}
    </p>
  );
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `settings-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section class="settings-section" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

function FullName({ store }: { store: ClientStore }) {
  const [name, setName] = useState(store.userName(store.self));
  const s = useSave();
  const disabled = store.state.realm_name_changes_disabled === true && store.state.is_admin !== true;
  return (
    <form
      class="settings-field"
      onSubmit={(e) => {
        e.preventDefault();
        void s.save({ full_name: name.trim() });
      }}
    >
      <label for="settings-full-name">Full name</label>
      <div class="settings-row">
        <input id="settings-full-name" type="text" value={name} disabled={disabled} aria-invalid={s.error ? true : undefined} aria-describedby="settings-full-name-outcome" onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" disabled={s.busy || disabled}>
          Save name
        </button>
      </div>
      {disabled && <p class="muted">The organization does not let people change their names.</p>}
      <Outcome id="settings-full-name-outcome" error={s.error} saved={s.saved} />
    </form>
  );
}

function Password() {
  const [old, setOld] = useState('');
  const [fresh, setFresh] = useState('');
  const s = useSave();
  return (
    <form
      class="settings-field"
      onSubmit={(e) => {
        e.preventDefault();
        void s.save({ old_password: old, new_password: fresh }, () => {
          setOld('');
          setFresh('');
        });
      }}
    >
      <label for="settings-old-password">Current password</label>
      <input id="settings-old-password" type="password" autoComplete="current-password" value={old} aria-invalid={s.error ? true : undefined} aria-describedby="settings-password-outcome" onInput={(e) => setOld(e.currentTarget.value)} />
      <label for="settings-new-password">New password</label>
      <div class="settings-row">
        <input id="settings-new-password" type="password" autoComplete="new-password" value={fresh} aria-invalid={s.error ? true : undefined} aria-describedby="settings-password-outcome" onInput={(e) => setFresh(e.currentTarget.value)} />
        <button type="submit" disabled={s.busy || old === '' || fresh === ''}>
          Change password
        </button>
      </div>
      <Outcome id="settings-password-outcome" error={s.error} saved={s.saved} />
    </form>
  );
}

/** A choice saved as soon as it is made (a select). */
function Choice({ id, label, value, options, onSave }: { id: string; label: string; value: string; options: [string, string][]; onSave: (value: string) => Settings }) {
  const s = useSave();
  const [shown, setShown] = useState(value);
  return (
    <div class="settings-field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={shown}
        aria-describedby={`${id}-outcome`}
        onChange={(e) => {
          setShown(e.currentTarget.value);
          void s.save(onSave(e.currentTarget.value));
        }}
      >
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      <Outcome id={`${id}-outcome`} error={s.error} saved={s.saved} />
    </div>
  );
}

function Toggle({ store, name, label }: { store: ClientStore; name: string; label: string }) {
  const stored = ((store.state.user_settings ?? {}) as Settings)[name] === true;
  // Shown as clicked at once; the server's event (or a refusal) settles it.
  const [on, setOn] = useState(stored);
  useEffect(() => setOn(stored), [stored]);
  const s = useSave();
  const id = `settings-${name}`;
  return (
    <div class="settings-field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={on}
        disabled={s.busy}
        aria-describedby={`${id}-outcome`}
        onChange={(e) => {
          const next = e.currentTarget.checked;
          setOn(next);
          void s.save({ [name]: next }).then((saved) => saved || setOn(!next));
        }}
      />
      <label for={id}>{label}</label>
      <Outcome id={`${id}-outcome`} error={s.error} saved={s.saved} />
    </div>
  );
}

function Permission() {
  const [permission, setPermission] = useState(notificationPermission());
  const words =
    permission === 'unsupported'
      ? 'This browser cannot show desktop notifications.'
      : permission === 'granted'
        ? 'This browser shows desktop notifications from this page.'
        : permission === 'denied'
          ? 'This browser blocks notifications from this page: allow them in its site settings.'
          : 'This browser has not been allowed to show notifications yet.';
  return (
    <div class="settings-field">
      <p id="settings-permission" role="status">
        {words}
      </p>
      {permission === 'default' && (
        <button type="button" aria-describedby="settings-permission" onClick={async () => setPermission(await requestNotificationPermission())}>
          Allow desktop notifications
        </button>
      )}
    </div>
  );
}

export function SettingsDialog({ store, onClose }: { store: ClientStore; onClose: () => void }) {
  const settings = (store.state.user_settings ?? {}) as Settings;
  return (
    <Modal title="Settings" onClose={onClose}>
      <div class="settings">
        <Section title="Profile">
          <AvatarSetting store={store} />
          <FullName store={store} />
          <ProfileFieldsSetting store={store} />
        </Section>
        <Section title="Password">
          <Password />
        </Section>
        <Section title="Display">
          <Choice
            id="settings-time-format"
            label="Time format"
            value={settings.twenty_four_hour_time === true ? '24' : '12'}
            options={[
              ['12', '12-hour (2:30 PM)'],
              ['24', '24-hour (14:30)'],
            ]}
            onSave={(v) => ({ twenty_four_hour_time: v === '24' })}
          />
          <Choice
            id="settings-theme"
            label="Theme"
            value={String(settings.color_scheme ?? 1)}
            options={[
              ['1', 'Automatic (as the system)'],
              ['3', 'Light'],
              ['2', 'Dark'],
            ]}
            onSave={(v) => ({ color_scheme: Number(v) })}
          />
        </Section>
        <Section title="Notifications">
          <Permission />
          <Toggle store={store} name="enable_desktop_notifications" label="Desktop notifications for direct messages and mentions" />
          <Toggle store={store} name="enable_stream_desktop_notifications" label="Desktop notifications for every message in channels (each channel can differ)" />
          <Toggle store={store} name="enable_followed_topic_desktop_notifications" label="Desktop notifications for followed topics" />
          <Toggle store={store} name="wildcard_mentions_notify" label="Notify for @all and @topic mentions" />
          <Toggle store={store} name="pm_content_in_desktop_notifications" label="Show direct message content in notifications" />
        </Section>
        <DialogButtons onClose={onClose} />
      </div>
    </Modal>
  );
}
