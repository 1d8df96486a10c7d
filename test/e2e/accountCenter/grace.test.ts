// Grace periods in the account center, in Chromium (issue 36): a platform the person completed
// adds a required field with a date a week ahead; the home page shows a non-blocking notice "<platform>
// will need … from <date>" with a link to the form, in English and in German. Found by labels and
// roles; axe finds no serious violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { bootstrapMembership, setCompletedVersion, upsertCustomValues } from '../../../src/services/onboarding/onboardingRepository.ts';
import { findPlatformByKey } from '../../../src/services/registry/platformsRepository.ts';
import { findUserBySub } from '../../../src/services/account/usersRepository.ts';
import { DEV_USERS } from '../../../src/devidp/users.ts';

const PLATFORM = 'GRACE_DEMO';
const NAME = 'Harbour Freight';

describe.skipIf(!hasChromium)(`grace notices in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;

  beforeAll(async () => {
    stack = await startAccountCenterStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Alice is a member who completed the platform's form; then a field is added with a week's grace. */
  async function completedThenChanged(): Promise<void> {
    const db = stack.harness.database.db;
    await createPlatform(
      db,
      { platformKey: PLATFORM, displayName: NAME, callbackUrl: 'https://freight.example/auth/callback', allowedReturnUrls: ['https://freight.example/'], defaultOnboardingMode: 'central', centralOnboardingEnabled: true },
      CLI_ACTOR,
    );
    await createFieldDefinition(db, PLATFORM, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, CLI_ACTOR);
    const alice = (await findUserBySub(db, DEV_USERS.find((user) => user.username === 'alice')!.sub))!;
    await bootstrapMembership(db, alice.id, (await findPlatformByKey(db, PLATFORM))!.id);
    const platform = (await findPlatformByKey(db, PLATFORM))!;
    await upsertCustomValues(db, alice.id, platform.id, new Map([['company', 'Acme']]));
    await setCompletedVersion(db, alice.id, platform.id, platform.requirementVersion);
    const enforceAfter = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    await createFieldDefinition(db, PLATFORM, { fieldKey: 'vatNumber', label: 'VAT number', fieldType: 'TEXT', required: true }, CLI_ACTOR, { enforceAfter });
  }

  it('shows "<platform> will need … from <date>" with a link to the form, in English and German, axe clean', async () => {
    // Alice signs in once so that she exists; then the platform changes its form.
    const { context, page } = await stack.newPage({ locale: 'en-GB' });
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/profile', USERS.alice);
    await completedThenChanged();

    await page.goto(`${stack.url}/`);
    const notice = page.getByRole('status').filter({ hasText: NAME });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(new RegExp(`^${NAME} will need one more detail from .+\\.\\s*Until then you can sign in to ${NAME} as before\\. Complete it now$`));
    await expectAccessible(page, 'grace notice (en)');
    await screenshots(page, 'grace-notice-en');
    await notice.getByRole('link', { name: `Complete it now for ${NAME}` }).click();
    await page.waitForURL(`${stack.url}/onboarding/${PLATFORM}`);
    await page.getByRole('textbox', { name: /VAT number/ }).waitFor();
    expect(errors).toEqual([]);
    await context.close();

    const german = await stack.newPage({ locale: 'de-DE' });
    await signIn(stack, german.page, '/profile', USERS.alice);
    await german.page.goto(`${stack.url}/`);
    const hinweis = german.page.getByRole('status').filter({ hasText: NAME });
    await hinweis.waitFor();
    expect(await hinweis.textContent()).toMatch(new RegExp(`^${NAME} benötigt ab .+ eine weitere Angabe\\.\\s*Bis dahin können Sie sich wie bisher bei ${NAME} anmelden\\. Jetzt ergänzen$`));
    await expectAccessible(german.page, 'grace notice (de)');
    await screenshots(german.page, 'grace-notice-de');
    await hinweis.getByRole('link', { name: `Jetzt ergänzen für ${NAME}` }).click();
    await german.page.waitForURL(`${stack.url}/onboarding/${PLATFORM}`);
    await german.context.close();
  });
});
