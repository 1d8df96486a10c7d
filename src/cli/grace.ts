// `grace list` and `grace move`: the requirement changes of a platform still in grace (issue
// 36), as the admin API's listRequirementGraces and moveRequirementGraces.
import { CLI_ACTOR } from '../services/audit/audit.ts';
import { listRequirementGraces, moveRequirementGraces, type RequirementGraceList } from '../services/onboarding/grace.ts';
import { parseWithArguments, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';

export const GRACE_HELP = `Grace periods of requirement changes (a field change or a document version published with
--enforce-after DATE: until then people who have not met it sign in as before, with GRACE):
  grace list <KEY>             the platform's requirement versions still in grace, with their dates
  grace move <KEY> --enforce-after ISO_DATE
                               move every one of them to the date; a date in the past enforces
                               them now (the next login of whoever has not met them blocks)
`;

export function parseGraceCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  switch (action) {
    case undefined:
    case '--help':
    case '-h':
      return null;
    case 'list': {
      const { values, positionals } = parseWithArguments(args, {}, 'grace list', ['the platform KEY']);
      if (values.help) return null;
      return async (db, _io, json) => {
        const list = await listRequirementGraces(db, positionals[0]!);
        io.stdout(json ? toJson(list) : formatGraces(list));
      };
    }
    case 'move': {
      const { values, positionals } = parseWithArguments(args, { 'enforce-after': { type: 'string' } }, 'grace move', ['the platform KEY']);
      if (values.help) return null;
      const enforceAfter = values['enforce-after'];
      if (enforceAfter === undefined) throw new UsageError('grace move needs --enforce-after ISO_DATE');
      return async (db, _io, json) => {
        const list = await moveRequirementGraces(db, positionals[0]!, enforceAfter, CLI_ACTOR);
        io.stdout(json ? toJson(list) : formatGraces(list));
      };
    }
    default:
      throw new UsageError(`unknown grace command "${action}" (list, move)`);
  }
}

function formatGraces(list: RequirementGraceList): string {
  if (list.items.length === 0) return `${list.platformKey}: requirementVersion ${list.requirementVersion}; every change is enforced.\n`;
  const lines = [`${list.platformKey}: requirementVersion ${list.requirementVersion}; in grace:`];
  for (const item of list.items) lines.push(`  version ${item.requirementVersion}  enforced from ${item.enforceAfter}`);
  return `${lines.join('\n')}\n`;
}
