/**
 * What every administration section shares: a request run from a control, with its
 * refusal in words beside that control (the server decides; what was typed stays), and
 * its success said briefly.
 */
import { useState } from 'preact/hooks';
import { describeError } from '../api';

export interface Action {
  busy: boolean;
  error: string;
  done: string;
  /** Runs `request`; on success says `success` (and returns true), on refusal says `failure: <the server's words>`. */
  run: (request: () => Promise<unknown>, failure: string, success?: string) => Promise<boolean>;
  clear: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  return {
    busy,
    error,
    done,
    clear: () => {
      setError('');
      setDone('');
    },
    run: async (request, failure, success = '') => {
      setBusy(true);
      setError('');
      setDone('');
      try {
        await request();
        setDone(success);
        return true;
      } catch (e) {
        setError(`${failure}: ${describeError(e)}`);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** The outcome of an action, where it was asked; `id` lets a field point at it (aria-describedby). */
export function Outcome({ action, id }: { action: Action; id?: string }) {
  if (action.error)
    return (
      <p class="error field-error" role="alert" id={id}>
        {action.error}
      </p>
    );
  if (action.done)
    return (
      <p class="field-done" role="status" id={id}>
        {action.done}
      </p>
    );
  return null;
}

/** A form's submit button (off while its action runs, or while `disabled`) and the action's outcome under it. */
export function SubmitRow({ label, action, disabled = false, outcomeId }: { label: string; action: Action; disabled?: boolean; outcomeId: string }) {
  return (
    <>
      <div class="actions-row">
        <button type="submit" disabled={action.busy || disabled}>
          {label}
        </button>
      </div>
      <Outcome action={action} id={outcomeId} />
    </>
  );
}

/** One action per row of a list (a user, an invitation), each with its own outcome. */
export function useRowActions() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [dones, setDones] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | undefined>();
  return {
    busy,
    errorOf: (key: string) => errors[key] ?? '',
    doneOf: (key: string) => dones[key] ?? '',
    run: async (key: string, request: () => Promise<unknown>, failure: string, success = '') => {
      setBusy(key);
      setErrors((all) => ({ ...all, [key]: '' }));
      setDones((all) => ({ ...all, [key]: '' }));
      try {
        await request();
        setDones((all) => ({ ...all, [key]: success }));
        return true;
      } catch (e) {
        setErrors((all) => ({ ...all, [key]: `${failure}: ${describeError(e)}` }));
        return false;
      } finally {
        setBusy(undefined);
      }
    },
  };
}

export function RowDone({ text }: { text: string }) {
  return text ? (
    <p class="field-done" role="status">
      {text}
    </p>
  ) : null;
}

export function RowError({ text }: { text: string }) {
  return text ? (
    <p class="error field-error" role="alert">
      {text}
    </p>
  ) : null;
}
