import type { Reporter, TestModule } from 'vitest/node';

/** The plain closing line CI logs are read for (as `npm run test:failover` prints one). */
export default class ClosingLine implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of modules) {
      // A file whose setup failed (the provider or the browser did not start) fails, its tests unrun.
      if (module.state() === 'failed' && ![...module.children.allTests()].some((test) => test.result().state === 'failed')) counts.failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    // A setup that failed (the provider did not start) counts as a failure, never as a pass.
    if (errors.length > 0 && counts.failed === 0) counts.failed = errors.length;
    process.stdout.write(`provider: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
