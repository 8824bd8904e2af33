// Outputs that cannot collide: -o, --report, the --split folder and the files it writes are compared before
// anything is sent, since two outputs on one file would each replace the other (the last rename wins, and the
// other's records are lost). Two paths are one file when they lead to the same place: the folders by realpath
// (a linked folder on the way counts), the names as the file system compares them (without case where it
// ignores case, as macOS and Windows do), or, for files that exist, when they are one file (a hard link: the
// same device and inode). A file named as the --split folder, or as a folder above it, collides with it too.
// Only what the run replaces is compared: standard output, devices and FIFOs are written in place, one output
// after the other; a link or a folder named as a file is refused when the output is opened (sink.ts).
// An input file is compared too, through its links: an output on it would replace the list while it is read.
import { fstat, promises as fsp, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { basename, dirname, join, sep } from 'node:path';

export interface NamedOutput {
  /** The flag that names it; 'input' for a file the run reads. */
  flag: '-o' | '--report' | '--split' | 'input';
  /** The output as the user named it, for messages: `-o out.csv`, `--split out (its ok.csv)`. */
  what: string;
  /** Its absolute path. */
  path: string;
  /** A folder the run writes into (--split DIR), not a file it replaces. */
  folder?: boolean;
  /** For an input read through a descriptor (standard input redirected from a file): that descriptor. */
  fd?: number;
}

/** Where an output leads: its path with its folder's realpath, and the file it is (when there is one). */
interface Place {
  output: NamedOutput;
  where: string;
  /** `dev:ino` of the file that is there, if any. */
  file: string | null;
}

/**
 * The message for the first two outputs that are one file (null: none are). `folds` says whether the file system
 * of a folder ignores case (foldsCase on this system's platform).
 */
export async function firstCollision(outputs: readonly NamedOutput[], folds: (dir: string) => Promise<boolean>): Promise<Collision | null> {
  const places = (await Promise.all(outputs.map(placeOf))).filter((p): p is Place => p !== null);
  for (let i = 0; i < places.length; i++) {
    for (let j = i + 1; j < places.length; j++) {
      const [a, b] = [places[i]!, places[j]!];
      if (a.output.flag === b.output.flag) continue; // --split's folder and files
      if (await collide(a, b, folds)) return { outputs: [a.output, b.output], message: message(a.output, b.output) };
    }
  }
  return null;
}

export interface Collision {
  outputs: [NamedOutput, NamedOutput];
  message: string;
}

function message(a: NamedOutput, b: NamedOutput): string {
  const input = a.flag === 'input' ? a : b.flag === 'input' ? b : null;
  if (input) {
    const output = input === a ? b : a;
    const which = input.fd === undefined ? `the input ${input.what}` : 'the file standard input is read from';
    return `${output.what} is ${which}: it would replace the list being read; give ${output.flag} another name.`;
  }
  const [file, folder] = a.folder ? [b, a] : [a, b];
  if (folder.folder) return `${file.what} and ${folder.what} meet: ${file.flag} would be a file where --split makes its folder; give one of them another path.`;
  return `${a.what} and ${b.what} are one file: one would replace the other; give one of them another name.`;
}

async function collide(a: Place, b: Place, folds: (dir: string) => Promise<boolean>): Promise<boolean> {
  if (a.file !== null && a.file === b.file) return true;
  if (meet(a, b, a.where, b.where)) return true;
  const [fa, fb] = [fold(a.where), fold(b.where)];
  // Equal but for case: one file where the file system ignores case (asked of the folder both are in).
  return meet(a, b, fa, fb) && (await folds(dirname(a.output.folder ? b.where : a.where)));
}

/** The same path; or, for a file and a folder, the file's path the folder's or one above it. */
function meet(a: Place, b: Place, wa: string, wb: string): boolean {
  if (wa === wb) return true;
  const [file, folder] = a.output.folder ? [wb, wa] : b.output.folder ? [wa, wb] : [null, null];
  return file !== null && folder!.startsWith(file + sep);
}

const fold = (path: string) => path.normalize('NFC').toLowerCase();

/** Null for what is not replaced (a device, a FIFO), or is refused when opened (a link, a folder named as a file). */
async function placeOf(output: NamedOutput): Promise<Place | null> {
  if (output.flag === 'input') return inputPlace(output);
  const st = await fsp.lstat(output.path).catch(() => null);
  if (output.folder) return { output, where: await realLocation(output.path), file: null };
  if (st && !st.isFile()) return null;
  return { output, where: join(await realLocation(dirname(output.path)), basename(output.path)), file: st ? fileId(st) : null };
}

/** An input is read through its links: the file it leads to (null: no regular file, so nothing to replace). */
async function inputPlace(output: NamedOutput): Promise<Place | null> {
  const st = await (output.fd === undefined ? fsp.stat(output.path) : promisify(fstat)(output.fd)).catch(() => null);
  if (!st?.isFile()) return null;
  // A descriptor has no path: only its file's identity can meet an output's.
  return { output, where: output.fd === undefined ? await realLocation(output.path) : `\0fd ${output.fd}`, file: fileId(st) };
}

/** A file's identity; none where the system gives no inode number (0). */
const fileId = (st: Stats) => (st.ino === 0 ? null : `${st.dev}:${st.ino}`);

/** The path with its longest existing part resolved by realpath (links and `..` on the way followed). */
async function realLocation(path: string): Promise<string> {
  const rest: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    try {
      return join(await fsp.realpath(p), ...rest.reverse());
    } catch {
      if (dirname(p) === p) return path;
      rest.push(basename(p));
    }
  }
}

/**
 * Whether the file system holding `dir` ignores case: a name in it (or, in an empty folder, the folder's own
 * name) looked up in the other case finds the same file. Where no name has a letter, the system's custom
 * (macOS and Windows ignore case; Linux does not).
 */
export async function foldsCase(dir: string, platform: NodeJS.Platform): Promise<boolean> {
  const names = await namesIn(dir);
  for (const [folder, name] of [...names.map((n) => [dir, n] as const), [dirname(dir), basename(dir)] as const]) {
    const other = swapCase(name);
    if (other === name) continue;
    const [a, b] = await Promise.all([fsp.lstat(join(folder, name)).catch(() => null), fsp.lstat(join(folder, other)).catch(() => null)]);
    if (a) return b !== null && a.dev === b.dev && a.ino === b.ino;
  }
  return platform === 'darwin' || platform === 'win32';
}

/** A few names in the folder (enough to find one with a letter, without reading a large folder whole). */
async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await fsp.opendir(dir)) {
      names.push(entry.name);
      if (names.length >= 16 || swapCase(entry.name) !== entry.name) break;
    }
  } catch {
    // no such folder yet, or not readable: its own name decides
  }
  return names;
}

const swapCase = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
