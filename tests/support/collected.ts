import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Whether the target of `ref` is let go: collections are forced (V8's gc, exposed here) for up to 20 rounds, each in a
 * job of its own, since deref() keeps its target alive until the job that called it ends. Make the WeakRef in a
 * function of its own: a suspended async function may keep its temporaries.
 */
export async function collected(ref: WeakRef<object>): Promise<boolean> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
  for (let round = 0; round < 20; round += 1) {
    await tick();
    gc();
    await tick();
    if (ref.deref() === undefined) return true;
  }
  return false;
}
