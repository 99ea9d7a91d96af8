import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { navigate } from '../router.js';
import { FormDialog } from './form-dialog.js';
import type { Rollout, RolloutGroup } from './model.js';
import { operationRequest, operationsFor, type Operation } from './operations.js';

interface Props {
  readonly rollout: Rollout;
  readonly groups: readonly RolloutGroup[];
  /** After an operation was accepted: read the rollout again. */
  readonly onDone: () => void;
  readonly onError: (error: unknown) => void;
}

/**
 * The operations valid in the rollout's status, each a button only for operators holding its permission;
 * stop, delete, retry and trigger ask first; approve and deny ask for a remark.
 */
export function RolloutOperations({ rollout, groups, onDone, onError }: Props) {
  const [asking, setAsking] = useState<Operation>();
  const [busy, setBusy] = useState<string>();

  /** Sends the operation; rejects with the server's error (shown in the dialog, or on the page). */
  const run = async (op: Operation, remark = ''): Promise<void> => {
    setBusy(op.name);
    try {
      const [method, path] = operationRequest(op.name, rollout.id, remark);
      const reply = await api.send<Rollout>(method, path);
      onError(null);
      if (op.name === 'retry' && reply !== undefined) navigate(`/rollouts/${reply.id}`);
      else if (op.name === 'delete') navigate('/rollouts');
      else onDone();
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <>
      {operationsFor(rollout.status, groups).map((op) => (
        <Button key={op.name} permission={op.permission} variant={op.variant ?? 'plain'} busy={busy === op.name} data-op={op.name}
          onClick={() => { if (op.confirm !== undefined || op.remark === true) setAsking(op); else run(op).catch(onError); }}>
          {op.label}
        </Button>
      ))}
      {asking !== undefined && (
        <ConfirmOperation op={asking} rollout={rollout} onCancel={() => { setAsking(undefined); }}
          onConfirm={async (remark) => { await run(asking, remark); setAsking(undefined); }} />
      )}
    </>
  );
}

interface ConfirmProps {
  readonly op: Operation;
  readonly rollout: Rollout;
  readonly onCancel: () => void;
  readonly onConfirm: (remark: string) => Promise<void>;
}

/** The question before an operation; approve and deny take a remark (at most 255 characters). */
function ConfirmOperation({ op, rollout, onCancel, onConfirm }: ConfirmProps) {
  const [remark, setRemark] = useState('');
  return (
    <FormDialog title={`${op.label}: ${rollout.name}`} onClose={onCancel} onSubmit={() => onConfirm(remark)} submitLabel={op.label}
      variant={op.variant === 'danger' ? 'danger' : 'primary'}>
      {op.confirm !== undefined && <p>{op.confirm}</p>}
      {op.remark === true && (
        <div class="field">
          <label for="op-remark">Remark (optional)</label>
          <textarea id="op-remark" class="input" maxLength={255} rows={3} value={remark} onInput={(e) => { setRemark(e.currentTarget.value); }} />
        </div>
      )}
    </FormDialog>
  );
}
