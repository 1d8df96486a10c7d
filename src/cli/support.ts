import { parseArgs } from 'node:util';
import type { components } from '../../generated/gateway.ts';
import type { CliIo } from './command.ts';
import { toJson } from './args.ts';

// `npm run gateway -- support request|list|end` (issue 35): support access over the gateway's
// HTTP API, as the operator. Unlike the registry commands (which write to the database as actor
// `cli`), support access needs a person who acts: the gateway takes the operator from the access
// token (their own provider login), never from an argument, so this command sends the operator's
// Bearer token from GATEWAY_ACCESS_TOKEN (an environment variable: arguments show in `ps`).

type SupportAccess = components['schemas']['SupportAccess'];

export const SUPPORT_HELP = `Usage: npm run gateway -- support <command> [options]

Support access (see docs/support-access.md). Talks to the running gateway over HTTP as the
operator whose access token is in GATEWAY_ACCESS_TOKEN (it must carry support:access, and the
operator must have signed in through the gateway once); GATEWAY_URL defaults to PUBLIC_BASE_URL,
then http://localhost:8080. In development:
  GATEWAY_ACCESS_TOKEN=$(npm run --silent gateway -- dev token --user admin) npm run gateway -- support list

  support request --person SUB_OR_EMAIL --platform KEY --reason TEXT [--minutes N]
                               ask to see the platform as the person (N at most 30, default 15);
                               prints the sign-in link once it can be used (open it in the
                               browser signed in to the gateway as yourself; it signs in once)
  support list [--limit N]     the recent requests, newest first
  support end <ID>             end an access now (its session ends; the platform is told)
`;

const OPTIONS = {
  person: { type: 'string' },
  platform: { type: 'string' },
  reason: { type: 'string' },
  minutes: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `support …`; returns the exit code (0 done, 1 refused or failed, 2 usage, 78 configuration). */
export async function runSupportCommand(argv: readonly string[], io: CliIo, fetchImpl: typeof fetch = fetch): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === '--help' || action === '-h' || action === 'help') {
    io.stdout(SUPPORT_HELP);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(SUPPORT_HELP);
    return 0;
  }
  const token = io.env.GATEWAY_ACCESS_TOKEN;
  if (!token) {
    io.stderr('gateway: support needs the operator\'s access token in GATEWAY_ACCESS_TOKEN\n');
    return 78;
  }
  const base = (io.env.GATEWAY_URL ?? io.env.PUBLIC_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetchImpl(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${String(answer.code ?? response.status)}: ${String(answer.detail ?? answer.title ?? response.statusText)}`);
    return answer;
  };
  try {
    if (action === 'request') {
      if (!values.person || !values.platform || !values.reason) return usage(io, 'support request needs --person, --platform and --reason');
      if (values.minutes !== undefined && !/^\d{1,2}$/.test(values.minutes)) return usage(io, '--minutes must be a whole number');
      const created = (await send('POST', '/v1/support-access', {
        person: values.person,
        platformKey: values.platform,
        reason: values.reason,
        ...(values.minutes !== undefined ? { durationMinutes: Number(values.minutes) } : {}),
      })) as unknown as SupportAccess;
      io.stdout(values.json ? toJson(created) : formatAccess(created));
      return 0;
    }
    if (action === 'list') {
      if (values.limit !== undefined && !/^\d{1,3}$/.test(values.limit)) return usage(io, '--limit must be a whole number');
      const list = (await send('GET', `/v1/support-access${values.limit ? `?limit=${values.limit}` : ''}`)) as unknown as { items: SupportAccess[] };
      io.stdout(values.json ? toJson(list) : list.items.length === 0 ? 'No support access requests.\n' : list.items.map(formatAccess).join(''));
      return 0;
    }
    if (action === 'end') {
      const [id] = positionals;
      if (!id || !/^[0-9a-f-]{36}$/.test(id)) return usage(io, 'support end needs the access ID');
      const ended = (await send('POST', `/v1/support-access/${id}/end`)) as unknown as SupportAccess;
      io.stdout(values.json ? toJson(ended) : formatAccess(ended));
      return 0;
    }
    return usage(io, `unknown support command "${action}" (request, list, end)`);
  } catch (error) {
    io.stderr(`gateway: ${(error as Error).message}\n`);
    return 1;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`gateway: ${message}\nRun \`npm run gateway -- support --help\` for usage.\n`);
  return 2;
}

function formatAccess(access: SupportAccess): string {
  const lines = [
    `${access.id}  ${access.status}  ${access.platform.key}  ${access.person.displayName ?? access.person.sub}  ${access.durationMinutes} min  by ${access.operator.name ?? access.operator.sub}`,
    `  reason: ${access.reason}`,
  ];
  if (access.endsAt) lines.push(`  ends: ${access.endsAt}`);
  if (access.signInUrl) lines.push(`  sign-in link: ${access.signInUrl}`);
  return `${lines.join('\n')}\n`;
}
