// chalk, loaded only when colour is on.
import type { ChalkInstance } from 'chalk';

export type Chalk = ChalkInstance;

export async function loadChalk(color: boolean): Promise<Chalk | null> {
  if (!color) return null;
  const { Chalk: Ctor } = await import('chalk');
  return new Ctor({ level: 1 });
}
