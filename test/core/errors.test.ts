// Errors (src/core/errors.ts): a kind maps to exactly one exit code, as the contract's table says; an interruption's
// code is its signal's; a file-system failure is said in words with its code.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, fsReason, IdvError, inputError, interruptedError, stopSignal, usageError, type ErrorKind } from '../../src/core/errors.js';

describe('exit codes', () => {
  it("each kind has the contract's code: usage and input 2, auth 3, quota 4, failed 1, interrupted 130/143/129", () => {
    const codes: Record<ErrorKind, number> = { usage: 2, input: 2, auth: 3, quota: 4, failed: 1, interrupted: 130 };
    for (const [kind, code] of Object.entries(codes) as Array<[ErrorKind, number]>) {
      expect(exitCodeFor(kind), kind).toBe(code);
      expect(new IdvError(kind, 'x').exitCode, kind).toBe(code);
    }
    expect([exitCodeFor('interrupted', 'SIGINT'), exitCodeFor('interrupted', 'SIGTERM'), exitCodeFor('interrupted', 'SIGHUP')]).toEqual([130, 143, 129]);
  });

  it('an interruption names its signal from the abort reason, SIGINT when the reason names none', () => {
    expect(['SIGINT', 'SIGTERM', 'SIGHUP', undefined, 'EPIPE', new Error('x')].map(stopSignal)).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGINT', 'SIGINT', 'SIGINT']);
    const e = interruptedError('SIGTERM');
    expect(e).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM', message: 'Interrupted (SIGTERM).', exitCode: 143 });
    expect(interruptedError('SIGHUP').exitCode).toBe(129);
  });
});

describe('IdvError', () => {
  it('is an Error named IdvError with its kind, one line of message, and no signal unless interrupted', () => {
    const e = usageError('--batch-size takes a whole number from 1 to 1000.');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(IdvError);
    expect(e).toMatchObject({ name: 'IdvError', kind: 'usage', message: '--batch-size takes a whole number from 1 to 1000.', signal: undefined, exitCode: 2 });
    expect(String(e)).toBe('IdvError: --batch-size takes a whole number from 1 to 1000.');
    expect(inputError('list.csv: nothing to validate.')).toMatchObject({ kind: 'input', exitCode: 2 });
  });
});

describe('fsReason', () => {
  it.each([
    ['ENOSPC', 'no space left on the device (ENOSPC)'],
    ['EDQUOT', 'the disk quota is used up (EDQUOT)'],
    ['EACCES', 'permission denied (EACCES)'],
    ['EPERM', 'permission denied (EPERM)'],
    ['EROFS', 'the file system is read-only (EROFS)'],
    ['ENOTDIR', 'a part of the path is not a folder (ENOTDIR)'],
    ['EISDIR', 'it is a folder (EISDIR)'],
    ['EPIPE', 'its reader went away (EPIPE)'],
  ])('%s: the reason in words, then its code', (code, words) => {
    expect(fsReason(Object.assign(new Error(`${code}: raw message, /some/path`), { code }))).toBe(words);
  });

  it('a code without words is said as it is; an error without a code by its message; anything else as text', () => {
    expect(fsReason(Object.assign(new Error('x'), { code: 'ETXTBSY' }))).toBe('ETXTBSY');
    expect(fsReason(new Error('the disk said no'))).toBe('the disk said no');
    expect(fsReason('a string thrown')).toBe('a string thrown');
    expect(fsReason(undefined)).toBe('undefined');
  });
});
