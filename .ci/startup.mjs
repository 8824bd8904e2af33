// CI: the start-up of the built idv on the Node running this script, against a bare `node -e 0`
// (median of 15 interleaved runs after one warm-up, in an environment without NODE_* or IDV_* settings).
// A figure to compare Node versions by; `npm run bench` measures it with more care.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const IDV = fileURLToPath(new URL('../bin/idv.js', import.meta.url));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_|IDV_)/.test(k)));
const cmds = [['-e', '0'], [IDV, '--version']];
const times = cmds.map(() => []);
for (let round = -1; round < 15; round++) {
  cmds.forEach((args, i) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
    if (round >= 0) times[i].push(performance.now() - t0);
  });
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const [node, idv] = times.map(median);
console.log(`start-up: node -e 0 ${node.toFixed(1)} ms, idv --version ${idv.toFixed(1)} ms (${(idv / node).toFixed(2)}× node)`);
