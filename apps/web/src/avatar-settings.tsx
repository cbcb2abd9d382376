/**
 * The person's avatar in the settings: a file picker (one PNG, JPEG, GIF or WebP image),
 * a preview of the chosen picture while it uploads, the upload's progress with a Cancel
 * button, and a button that removes an uploaded avatar (back to the Gravatar). A file over
 * the server's limit (register's `max_avatar_file_size_mib`) or of another type is refused
 * here, in words, before anything is sent; what the server refuses is said the same way.
 * The new avatar then comes back as a `realm_user` event, here and on everyone's pages.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, json } from './api';
import { Avatar } from './feed';
import type { ClientStore } from './store';
import { sendFile, tooLargeFor, type Sending } from './write-api';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

interface Progress {
  sent: number;
  total: number;
}

export function AvatarSetting({ store }: { store: ClientStore }) {
  const me = store.users.get(store.self);
  const uploaded = store.state.avatar_source === 'U';
  const disabled = store.state.realm_avatar_changes_disabled === true && store.state.is_admin !== true;
  const [preview, setPreview] = useState<string | undefined>();
  const [progress, setProgress] = useState<Progress | undefined>();
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const sending = useRef<Sending<unknown> | undefined>(undefined);
  const picker = useRef<HTMLInputElement>(null);
  // The preview's object URL is the page's memory until revoked.
  useEffect(() => () => preview && URL.revokeObjectURL(preview), [preview]);
  useEffect(() => () => sending.current?.cancel(), []);

  const finish = (outcome: { error?: string; done?: string }) => {
    sending.current = undefined;
    setProgress(undefined);
    setPreview(undefined);
    setError(outcome.error ?? '');
    setDone(outcome.done ?? '');
    if (picker.current) picker.current.value = '';
  };

  const choose = (file: File | undefined) => {
    if (!file) return;
    setDone('');
    if (!IMAGE_TYPES.includes(file.type)) {
      finish({ error: `Avatar not changed: “${file.name}” is not a PNG, JPEG, GIF or WebP image.` });
      return;
    }
    const tooLarge = tooLargeFor(file, store.state.max_avatar_file_size_mib);
    if (tooLarge) {
      finish({ error: `Avatar not changed: “${file.name}” ${tooLarge.replace(/^it /, '')}` });
      return;
    }
    setError('');
    setPreview(URL.createObjectURL(file));
    setProgress({ sent: 0, total: file.size });
    const upload = sendFile('/users/me/avatar', file, (sent, total) => setProgress({ sent, total }));
    sending.current = upload;
    upload.done.then(
      () => finish({ done: 'Avatar uploaded.' }),
      (e: unknown) => finish(e instanceof ApiError && e.code === 'ABORTED' ? {} : { error: `Avatar not changed: ${describeError(e)}` }),
    );
  };

  const remove = async () => {
    setDone('');
    try {
      await json<unknown>('DELETE', '/users/me/avatar');
      finish({ done: 'Avatar removed.' });
    } catch (e) {
      finish({ error: `Avatar not removed: ${describeError(e)}` });
    }
  };

  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <div class="settings-field avatar-setting">
      <div class="settings-row">
        {preview ? <img class="avatar large" src={preview} alt="Preview of the new avatar" width={64} height={64} /> : <Avatar url={me?.avatar_url} name={store.userName(store.self)} id={store.self} size="large" />}
        <div class="avatar-controls">
          <label for="settings-avatar-file">Upload a new avatar</label>
          <input
            id="settings-avatar-file"
            ref={picker}
            type="file"
            accept={IMAGE_TYPES.join(',')}
            disabled={disabled || progress !== undefined}
            aria-invalid={error ? true : undefined}
            aria-describedby="settings-avatar-outcome settings-avatar-hint"
            onChange={(e) => choose(e.currentTarget.files?.[0])}
          />
          <p id="settings-avatar-hint" class="muted">
            PNG, JPEG, GIF or WebP, up to {String(store.state.max_avatar_file_size_mib ?? 5)} MiB.
          </p>
          {progress && (
            <div class="settings-row">
              <progress max={100} value={percent} aria-label="Avatar upload">
                {percent}%
              </progress>
              <button type="button" onClick={() => sending.current?.cancel()}>
                Cancel upload
              </button>
            </div>
          )}
          {uploaded && !progress && (
            <button type="button" disabled={disabled} onClick={() => void remove()}>
              Remove avatar
            </button>
          )}
        </div>
      </div>
      {disabled && <p class="muted">The organization does not let people change their avatars.</p>}
      <p id="settings-avatar-outcome" class={`field-outcome${error ? ' error' : ''}`} role={error ? 'alert' : 'status'}>
        {error || done}
      </p>
    </div>
  );
}
