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

// package.json's version, written into dist/program.cjs by scripts/bundle.mjs (esbuild's `define`): the bundle
// does not read package.json at every start. Undefined in the unbundled modules.
declare const IDV_PACKAGE_VERSION: string | undefined;
