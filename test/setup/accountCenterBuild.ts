import { ensureAccountCenterBuilt } from '../../account-center/server/build.ts';

/** The browser tests serve the built account center: build it once per run when stale. */
export default async function setup() {
  await ensureAccountCenterBuilt();
}
