// Local trust, as ssh and gpg have it: the cache folder is used only when it belongs to the user and no one
// else can write in it. Otherwise another local user could plant results (a forged `ok` costs nothing to
// write), read what this user validates, or plant links that make idv write into this user's own files.
import { mkdirSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Why a folder cannot be trusted; the message names the fix. */
export class UntrustedFolder extends Error {}

/** Make the cache folder (0700) if it is missing, then make sure it can be trusted; throws UntrustedFolder. */
export function trustedFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  const uid = currentUid();
  if (!st.isDirectory()) throw new UntrustedFolder(`${dir} is not a folder; remove it, or set XDG_CACHE_HOME to a folder of your own`);
  if (uid === null) return; // no owners to compare (Windows)
  if (st.uid !== uid) {
    throw new UntrustedFolder(
      `it belongs to another user (uid ${st.uid}), who could plant forged results in it; remove it, or set XDG_CACHE_HOME to a folder of your own`,
    );
  }
  if ((st.mode & 0o022) !== 0) {
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0'); // with its sticky bit: 1777 is what it is
    throw new UntrustedFolder(`other users can write in it (mode ${mode}) and could plant forged results; run chmod go-w ${dir}`);
  }
}

/** The effective user's id; null where the system has none (Windows). */
function currentUid(): number | null {
  try {
    const uid = userInfo().uid;
    return uid >= 0 ? uid : null;
  } catch {
    return ownerOfNewFolder(); // no passwd entry (a container's arbitrary uid): os.userInfo() cannot tell
  }
}

/** Who owns a folder this process makes: the effective user. */
function ownerOfNewFolder(): number | null {
  try {
    const probe = mkdtempSync(join(tmpdir(), 'idv-uid-'));
    try {
      return statSync(probe).uid;
    } finally {
      rmdirSync(probe);
    }
  } catch {
    return null;
  }
}
