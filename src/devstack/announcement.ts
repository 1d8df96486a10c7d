import type { Logger } from 'pino';

/** The first line of the dev stack's announcement: people and the dev stack's tests wait for it. */
export const READY_MESSAGE = 'dev stack ready (development only; these credentials are published and refused by any other gateway)';

/**
 * What a person needs after `npm start`: where to click, who to sign in as, how to get an admin
 * token. `--silent` keeps npm's banner out of stdout, so the token command's output is the token
 * alone (`TOKEN=$(npm run --silent gateway -- dev token --user admin)`).
 */
export const ADMIN_TOKEN_COMMAND = 'npm run --silent gateway -- dev token --user admin';

export interface ReadyParts {
  bffUrl: string | null;
  accountCenterUrl: string | null;
  gatewayUrl: string;
  devIdpUrl: string;
  platforms: readonly { platformKey: string; clientId: string; clientSecret: string }[];
  /** "alice / alice-password, …": only the users whose published password still works. */
  users: string;
  /** Username and otpauth:// URI of each demo user with a second factor. */
  secondFactors: readonly { username: string; uri: string }[];
}

/** The "what next" block, one entry a line. */
export function readyLines(parts: ReadyParts): string[] {
  return [
    `  example BFF      ${parts.bffUrl ? `${parts.bffUrl}/` : '(not running: set DEMO_BFF_PORT)'}`,
    ...parts.platforms.map((platform) => `    ${platform.platformKey}  client id ${platform.clientId}  secret ${platform.clientSecret}`),
    `  account center   ${parts.accountCenterUrl ? `${parts.accountCenterUrl}/` : '(not running: set ACCOUNT_CENTER_URL)'}`,
    `  API docs         ${parts.gatewayUrl}/docs (sign in as admin first for the admin operations)`,
    `  users            ${parts.users}`,
    // The demo users' second factor (a platform asks for it with requireSecondFactor): published
    // dev data like the passwords; an authenticator app reads the otpauth:// URI.
    ...(parts.secondFactors.length > 0 ? ['  second factor    TOTP secrets of the demo users, asked for when a platform requires a second factor:'] : []),
    ...parts.secondFactors.map((factor) => `    ${factor.username}  ${factor.uri}`),
    `  admin token      ${ADMIN_TOKEN_COMMAND}`,
  ];
}

/**
 * Logs the announcement. At a terminal (pino-pretty) the block follows the first line as real
 * lines, and nothing else: the same facts again as fields would only bury it. Everywhere else
 * (JSON lines for files, pipes, collectors) one line whose message has no line breaks, with the
 * block as an array (`next`) and the addresses as fields. The secrets are in the text, never in
 * fields named like secrets: the logger redacts those.
 */
export function announceReady(log: Logger, parts: ReadyParts, output: { pretty: boolean }): void {
  const lines = readyLines(parts);
  if (output.pretty) {
    log.info(`${READY_MESSAGE}:\n${lines.join('\n')}`);
    return;
  }
  log.info(
    { demo: parts.bffUrl, accountCenter: parts.accountCenterUrl, users: parts.users, devIdp: parts.devIdpUrl, next: lines.map((line) => line.trim()) },
    READY_MESSAGE,
  );
}
