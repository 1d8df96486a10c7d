// Preloaded with `node --import ./test/helpers/recordModules.ts …`: records every module the
// process resolves (ESM imports and require() alike, through Node's synchronous module hooks)
// and, when the process exits, writes their URLs to the file named by RECORD_MODULES_FILE,
// one a line. Used by test/e2e/productionModules.test.ts.
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const file = process.env.RECORD_MODULES_FILE;
if (!file) throw new Error('RECORD_MODULES_FILE is not set');
const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => writeFileSync(file, [...seen].join('\n') + '\n'));
