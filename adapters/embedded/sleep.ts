import { checkSleepDuration } from '../../core/definition/runRules.js';
import { Payload } from './payload.js';
import type { RunCommands } from './runCommands.js';
import { never } from './never.js';

/**
 * ctx.sleep, a durable timer: timer_started, then timer_fired; a cancel request (outside nonCancellable) rejects it.
 * After a restart a timer that was running keeps its due time.
 */
export function sleep(commands: RunCommands, ms: number): Promise<void> {
  try {
    checkSleepDuration(ms);
  } catch (error) {
    return Promise.reject(error);
  }
  const scope = commands.currentScope();
  const ordinal = String(commands.nextOrdinal('timer'));
  const call = commands.call('timer', 'sleep');
  if (!call) return never();
  if (call.mode === 'replayed') return commands.replayed(call);
  if (commands.isCancelled(scope)) return commands.settle(call, commands.cancelledOutcome('Timer cancelled'));
  const progress = call.record.progress;
  let timer: { timerId: string; dueAt: number };
  if (call.mode === 'resumed' && progress?.kind === 'timer') {
    timer = { timerId: progress.timerId, dueAt: progress.dueAt };
  } else {
    timer = { timerId: ordinal, dueAt: commands.now() + ms };
    commands.append('timer_started', { timerId: timer.timerId, durationMs: ms });
    commands.progressed(call, { kind: 'timer', ...timer });
  }
  return new Promise<void>((resolve) => {
    let withdrawCancel = (): void => {};
    const stopTimer = commands.timerAt(timer.dueAt, () => {
      withdrawCancel();
      commands.append('timer_fired', { timerId: timer.timerId });
      resolve(commands.settle(call, { ok: true, value: Payload.UNDEFINED }));
    });
    withdrawCancel = commands.onCancel(scope, () => {
      stopTimer();
      resolve(commands.settle(call, commands.cancelledOutcome('Timer cancelled')));
    });
  });
}
