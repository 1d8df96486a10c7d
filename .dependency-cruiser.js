// The layering rules of the gateway (docs/architecture.md; GUIDE §7), checked by
// `npm run lint:deps` in .ci/run. Dependencies point down:
//   api (wiring) → operations → services → their queries (src/services/<domain>/*epository.ts) → src/db
// with the shared lower modules (domain types, errors, security, web pages, config) below
// all of them. Each rule says in its `comment` why it exists; fix the import, not the rule.

/** Query modules: each domain's own, in its folder (repository.ts, or <table group>Repository.ts
 * where a domain has several). */
const REPOSITORY = '^src/services/[^/]+/([^/]*Repository|repository)\\.ts$';
/** What a repository may read of its domain folder besides queries: the domain's plain types. */
const DOMAIN_TYPES = '^src/services/[^/]+/types\\.ts$';

/**
 * The named exceptions to no-cross-domain-queries: a query module that builds another domain's
 * SQL (a fragment, a CTE, a JSON shape) into its own statement, where one statement instead of
 * two round trips is the point. Every other cross-domain read goes through the owning domain's
 * service functions (src/services/<domain>/index.ts).
 */
const SHARED_STATEMENTS = [
  {
    from: 'src/services/registry/platformsRepository.ts',
    to: ['src/services/rateLimits/repository.ts'],
    reason: 'the login start reads the platform and counts its rate limit in one statement (gw_active_platform_by_key_counting).',
  },
  {
    from: 'src/services/login/transactionsRepository.ts',
    to: ['src/services/rateLimits/repository.ts', 'src/services/registry/platformsRepository.ts'],
    reason: 'the callback consumes its transaction, counts its rate limit and reads the platform in one statement (gw_consume_transaction_counting).',
  },
  {
    from: 'src/services/login/handoffsRepository.ts',
    to: ['src/services/registry/platformsRepository.ts'],
    reason: "the exchange authenticates the platform (the registry's PLATFORM_CLIENT_MATCH) and redeems the handoff code in one statement (gw_redeem_handoff).",
  },
  {
    from: 'src/services/onboarding/onboardingRepository.ts',
    to: ['src/services/documents/repository.ts'],
    reason: 'the callback reads the onboarding fields and the document standings in one statement (gw_onboarding_inputs).',
  },
  {
    from: 'src/services/events/repository.ts',
    to: ['src/services/registry/platformsRepository.ts'],
    reason: "the events poll authenticates the platform inside its statement with the exchange's own client match (PLATFORM_CLIENT_MATCH): one rule, written once.",
  },
];
/** A path as a regular expression matching only itself. */
const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle has no bottom: none of its modules can be read, tested or moved alone, and load order decides what is undefined.',
      from: { path: '^(src|account-center/src|packages|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the resolver cannot follow is an import no rule here can check (and a module Node cannot load).',
      from: { path: '^(src|account-center/src|packages|scripts)/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-into-request-layers',
      severity: 'error',
      comment: 'api/ and operations/ are the HTTP edge (router, handlers): code below them must work without the router, so shared types go to src/domain/.',
      from: { path: '^src/(services|db|security|errors|web|domain|oidc|config|observability)/|^src/(deps|contract|logger|version)\\.ts$' },
      to: { path: '^src/(api|operations)/' },
    },
    {
      name: 'operations-call-services',
      severity: 'error',
      comment: 'An operation parses, calls a service and maps the answer: SQL reached from an operation skips the rules, audit and transactions the service owns.',
      from: { path: '^src/operations/' },
      to: { path: '^src/db/' },
    },
    {
      name: 'queries-belong-to-their-domain',
      severity: 'error',
      comment: 'Outside src/services (the HTTP edge, operations, pages, the OpenID client) a query is reached through its domain\'s service functions, so the rules, audit and transactions stay in one place; the dev stack seeds through them too, or beside them as a tool.',
      from: { path: '^src/', pathNot: '^src/(services|devstack)/' },
      to: { path: REPOSITORY },
    },
    {
      name: 'repositories-never-import-services',
      severity: 'error',
      comment: 'SQL never needs domain logic: a query module importing a service ties statements to rules; share types through src/domain/ instead.',
      from: { path: REPOSITORY },
      to: { path: '^src/services/', pathNot: `${REPOSITORY}|${DOMAIN_TYPES}` },
    },
    {
      name: 'db-below-services',
      severity: 'error',
      comment: 'src/db (connection, transactions, errors, migrations runner, paging) is the bottom of the domain stack and must not reach up into services.',
      from: { path: '^src/db/' },
      to: { path: '^src/services/' },
    },
    {
      name: 'domain-types-at-the-bottom',
      severity: 'error',
      comment: 'src/domain holds the types every layer shares; it stays importable from anywhere only if it imports nothing of the gateway but the generated contract types.',
      from: { path: '^src/domain/' },
      to: { path: '^(src|account-center|packages|scripts)/', pathNot: '^src/domain/' },
    },
    {
      name: 'errors-at-the-bottom',
      severity: 'error',
      comment: 'The error catalogue is imported by every layer; importing services or repositories from it makes the circle issue 34 found.',
      from: { path: '^src/errors/catalogue\\.ts$' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'security-is-shared',
      severity: 'error',
      comment: 'Crypto, URL and address checks are used by every layer; they must not depend on domain logic, SQL, pages or the OpenID client.',
      from: { path: '^src/security/' },
      to: { path: '^src/(services|db|web|oidc|observability)/' },
    },
    {
      name: 'no-composition-root-below',
      severity: 'error',
      comment: 'main.ts, app.ts, server.ts and bootProbes.ts assemble the process; a module below importing them would import the whole service (deps.ts holds the AppDeps type for that).',
      from: { path: '^src/(services|db|security|errors|web|domain|oidc|config|observability|operations|api)/' },
      to: { path: '^src/(main|app|bootProbes|server)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-tools-in-the-service',
      severity: 'error',
      comment: 'The service never loads the CLI, the dev stack, the account center, the platform kit, tests or scripts: production runs without them.',
      from: { path: '^src/(?!cli/|devstack/|main\\.ts$)' },
      to: { path: '^(src/cli/|src/devstack/|account-center/|packages/|test/|scripts/)' },
    },
    {
      name: 'account-center-is-a-browser-app',
      severity: 'error',
      comment: 'The account center is bundled for the browser: it reaches the gateway only through the contract (generated/), plus two pure rules of src/domain it shares with the gateway (colour contrast, a brand\'s name for a language).',
      from: { path: '^account-center/src/' },
      to: { path: '^(src|packages|scripts|test)/', pathNot: '^src/domain/(contrast|platformBrand)\\.ts$' },
    },
    {
      name: 'platform-kit-stands-alone',
      severity: 'error',
      comment: 'The platform kit is published to platform teams as its own package: its sources may use only themselves, npm packages and the generated contract types.',
      from: { path: '^packages/platform-kit/src/' },
      to: { path: '^(src|account-center|scripts|test)/' },
    },
    {
      name: 'no-cross-domain-queries',
      severity: 'error',
      comment: "A domain owns its tables: another domain calls its service functions (the domain's index.ts), so the rules, audit and transactions stay in one place. `$1` is the importer's domain folder.",
      from: { path: '^src/services/([^/]+)/', pathNot: SHARED_STATEMENTS.map(({ from }) => `^${escape(from)}$`) },
      to: { path: REPOSITORY, pathNot: '^src/services/$1/' },
    },
    // Each named exception may read exactly the query modules it names, and no other domain's.
    ...SHARED_STATEMENTS.map(({ from, to, reason }) => ({
      name: 'no-cross-domain-queries',
      severity: 'error',
      comment: `A query module builds another domain's SQL into its own statement only where it is named in SHARED_STATEMENTS: ${reason}`,
      from: { path: `^${escape(from)}$` },
      to: { path: REPOSITORY, pathNot: [`^${escape(from.slice(0, from.lastIndexOf('/') + 1))}`, ...to.map((module) => `^${escape(module)}$`)] },
    })),
  ],
  options: {
    // Only the project's own modules: npm packages are checked by npm, not by these rules.
    doNotFollow: { path: 'node_modules' },
    // Build output (the kit's dist/, the account center's dist/) is generated from the sources checked here.
    exclude: { path: '^(packages/[^/]+|account-center)/dist/' },
    // `import type` is erased by Node's type stripping but is still a dependency between
    // modules (both circles of issue 34 were type-only): count it.
    tsPreCompilationDeps: true,
    // The project imports './x.ts' (allowImportingTsExtensions); the TypeScript compiler
    // options of tsconfig.json make the resolver read those as written.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
