// Colours (src/output/colors.ts): chalk only when colour is on, and then the 16 colours every terminal shows.
import { describe, expect, it } from 'vitest';
import { loadChalk } from '../../src/output/colors.js';

describe('loadChalk', () => {
  it('no colour: nothing is loaded, nothing is coloured', async () => {
    expect(await loadChalk(false)).toBeNull();
  });

  it('colour: chalk at level 1 (16 colours), whatever the terminal claims', async () => {
    const chalk = (await loadChalk(true))!;
    expect(chalk.level).toBe(1);
    expect(chalk.green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(chalk.hex('#ffff00')('x')).toBe('\u001b[93mx\u001b[39m'); // a 24-bit colour comes down to one of the 16
  });
});
