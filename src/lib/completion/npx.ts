// What the scripts need to complete `npx billing …`: npx's own options that take a value (so the
// word after them is not the package), and how to run the billing npx already has.

/** npx's options followed by a value of their own: -p PKG, --package PKG, -c CMD. */
export const NPX_VALUED = ['-p', '--package', '-c', '--call'];

/**
 * Run what npx has without asking the registry: --no-install never installs, and --offline keeps it
 * from even looking the package up (which, offline, waits on the network at every Tab).
 */
export const NPX_RUN = '--offline --no-install';
