import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Page } from '../components/page.js';
import { useSubmit } from '../hooks/use-submit.js';
import { navigate } from '../router.js';
import { EMPTY_FORM, WIZARD_STEPS, createBody, missingIn, type RolloutForm } from './create-body.js';
import type { Rollout } from './model.js';
import { WizardBasics } from './wizard-basics.js';
import { WizardConditions } from './wizard-conditions.js';
import { WizardDeployment } from './wizard-deployment.js';
import { WizardGroups } from './wizard-groups.js';

const VIEWS = [WizardBasics, WizardGroups, WizardConditions, WizardDeployment] as const;

/**
 * The create wizard (`#/rollouts/new`): four steps, each checked for what a body needs before the next;
 * the server's 400 message is shown as it is. On success: the new rollout's page.
 */
export function CreateWizard() {
  const [form, setForm] = useState<RolloutForm>(EMPTY_FORM);
  const [step, setStep] = useState(0);
  const { busy, error, run } = useSubmit();
  const name = WIZARD_STEPS[step] ?? 'Basics';
  const View = VIEWS[step] ?? WizardBasics;
  const last = step === WIZARD_STEPS.length - 1;

  /** The next step once this one is complete; on the last, the rollout (the server's 400 message stays on the step). */
  const next = async (): Promise<void> => {
    const missing = missingIn(name, form);
    if (missing !== null) throw new Error(missing);
    if (!last) { setStep(step + 1); return; }
    const created = await api.send<Rollout>('POST', '/rest/v1/rollouts', createBody(form));
    if (created !== undefined) navigate(`/rollouts/${created.id}`);
  };

  return (
    <Page title="New rollout" actions={<Button onClick={() => { navigate('/rollouts'); }}>Cancel</Button>}>
      <ol class="steps" aria-label="Steps">
        {WIZARD_STEPS.map((s, i) => (
          <li key={s} class={i === step ? 'step current' : i < step ? 'step done' : 'step'} aria-current={i === step ? 'step' : undefined}>
            <span class="step-no">{i + 1}</span> {s}
          </li>
        ))}
      </ol>
      <form class="wizard" onSubmit={(e) => { e.preventDefault(); void run(next); }} noValidate>
        <h2 class="step-title">{name}</h2>
        <View form={form} set={(patch) => { setForm((f) => ({ ...f, ...patch })); }} />
        <ErrorBanner error={error} />
        <div class="wizard-nav">
          <Button disabled={step === 0} onClick={() => { void run(async () => { setStep(step - 1); }); }}>Back</Button>
          <Button type="submit" variant="primary" busy={busy}>{last ? 'Create rollout' : 'Next'}</Button>
        </div>
      </form>
    </Page>
  );
}
