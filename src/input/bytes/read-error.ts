// What an error of opening or reading a source's bytes says: one line naming the source and what to do.
import { IdvError, inputError } from '../../core/errors.js';

export function readError(err: unknown, name: string): IdvError {
  if (err instanceof IdvError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return inputError(`Cannot read ${name}: no such file.`);
    case 'EISDIR':
      return inputError(`Cannot read ${name}: it is a directory; give a file.`);
    case 'EACCES':
    case 'EPERM':
      return inputError(`Cannot read ${name}: permission denied.`);
    case 'EBUSY': // Windows: a program opened it sharing no reading (Excel holds a CSV so)
      return inputError(`Cannot read ${name}: another program has it open and locked (EBUSY); close it there (in Excel, close the file), then run idv again.`);
    default:
      return inputError(`Cannot read ${name}: ${(err as Error)?.message ?? String(err)}.`);
  }
}

/** What `read` gives; on an error, the source's stream is let go and the error named for the source. */
export async function orLetGo<T>(stream: { destroy(): void }, name: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    stream.destroy();
    throw readError(err, name);
  }
}
