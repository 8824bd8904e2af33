// What the single executable carries inside itself (scripts/build-binary.mjs defines it at bundle time with
// esbuild's `define`): the files that the program otherwise reads beside dist/ at run time. Undefined (and
// never declared at run time) when idv runs from dist/, so `typeof IDV_EMBEDDED` tells the two apart.
declare const IDV_EMBEDDED:
  | {
      /** package.json's version. */
      version: string;
      /** dist/help/<name>.txt, by <name> (`idv`, `emails`, `auth-login`…). */
      help: Record<string, string>;
      /** package.json's homepage: where the docs are (docs/ does not travel with the executable). */
      homepage: string;
    }
  | undefined;
