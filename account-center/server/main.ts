// `node account-center/server/main.ts`: the account center on its own (production, Docker).
// Configuration from the environment; the app must be built first (`npm run build:account-center`).
import { fileURLToPath } from 'node:url';
import { startAccountCenterServer } from './server.ts';

const env = process.env;
const problems: string[] = [];
const required = (name: string): string => {
  const value = env[name]?.trim();
  if (!value) problems.push(`${name} is required`);
  return value ?? '';
};
const port = Number(env.PORT ?? 3000);
const options = {
  port,
  publicUrl: env.PUBLIC_URL?.trim() || `http://localhost:${port}`,
  authBackendUrl: required('AUTH_BACKEND_URL'),
  platformKey: required('AUTH_PLATFORM_KEY'),
  clientId: required('ACCOUNT_CENTER_CLIENT_ID'),
  clientSecret: required('ACCOUNT_CENTER_CLIENT_SECRET'),
  distDir: fileURLToPath(new URL('../dist', import.meta.url)),
  extraOrigins: (env.ACCOUNT_CENTER_EXTRA_ORIGINS ?? '').split(',').map((origin) => origin.trim()).filter(Boolean),
  secureCookies: (env.PUBLIC_URL ?? '').startsWith('https://'),
};
if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT=${env.PORT} is refused: allowed 0..65535`);
if (problems.length > 0) {
  process.stderr.write(`account-center: invalid configuration:\n  - ${problems.join('\n  - ')}\n`);
  process.exit(78);
}
const server = await startAccountCenterServer(options);
process.stdout.write(`account center listening at ${server.url}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => void server.close().then(() => process.exit(0)));
}
