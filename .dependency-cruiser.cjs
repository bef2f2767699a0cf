/**
 * The layer rules of DESIGN section 2, checked by `npm run lint` over the whole tree: layers point
 * down only. Workflow code is replayed, so it imports only the workflow SDK, other workflow files
 * and pure domain modules (types excepted, since they are gone at run time).
 */

/** Outside packages domain code may use: pure ones only, so every layer can share domain/. */
const PURE_PACKAGES = ['(^|/)node_modules/libphonenumber-js/'];
/** Node built-ins domain code may use: hashing and random ids, no I/O. */
const PURE_BUILT_INS = ['^(node:)?crypto$'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports ties its files into one unit no layer rule can order (type-only imports count too).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflows-stay-deterministic',
      comment: 'Workflow code imports only workflows/, domain/, @temporalio/workflow and @temporalio/common (type-only imports excepted).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^workflows/', '^domain/', '@temporalio/workflow', '@temporalio/common'],
      },
    },
    {
      name: 'domain-imports-only-domain',
      comment: 'domain/ holds pure rules every layer shares: it imports only domain/ and the pure packages listed here (type-only imports excepted).',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^domain/', ...PURE_PACKAGES, ...PURE_BUILT_INS],
      },
    },
    {
      name: 'web-never-imports-api',
      comment: 'web/ is a leaf the API renders: what pages and the API share lives in domain/ (or in web/, for the API to import).',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^api/' },
    },
    {
      name: 'lower-layers-never-import-api',
      comment: 'db/, integrations/ and activities/ sit under the API: what they share with it lives in domain/ or in their own layer.',
      severity: 'error',
      from: { path: '^(db|integrations|activities)/' },
      to: { path: '^api/' },
    },
    {
      name: 'api-groups-stand-apart',
      comment:
        'Each caller\'s folder of the API (partner, rider, public, providers, ops) holds what only it uses; what several share sits in api/middleware/, api/temporal/ or api/ itself.',
      severity: 'error',
      from: { path: '^api/(partner|rider|public|providers|ops)/' },
      to: { path: '^api/(partner|rider|public|dashboard|providers|ops)/', pathNot: '^api/$1/' },
    },
    {
      name: 'dashboard-uses-only-partner-services',
      comment: 'The dashboard is the partner\'s other door: it may call the partner\'s services, and no other caller\'s.',
      severity: 'error',
      from: { path: '^api/dashboard/' },
      to: { path: '^api/(rider|public|providers|ops)/' },
    },
    {
      name: 'shared-api-code-serves-every-caller',
      comment: 'Middleware and the Temporal calls serve every caller, so they import none of the callers\' folders.',
      severity: 'error',
      from: { path: '^api/(middleware|temporal)/' },
      to: { path: '^api/(partner|rider|public|dashboard|providers|ops)/' },
    },
    {
      name: 'integrations-never-import-db',
      comment: 'An adapter to an outside system stands alone: whatever it stores goes through an interface its caller fills from db/.',
      severity: 'error',
      from: { path: '^integrations/' },
      to: { path: '^db/' },
    },
    {
      name: 'partner-client-stands-alone',
      comment: 'clients/typescript/ is a package of its own, published apart: it imports only itself, openapi-fetch and Node built-ins, never the service.',
      severity: 'error',
      from: { path: '^clients/typescript/' },
      to: {
        dependencyTypesNot: ['core'],
        pathNot: ['^clients/typescript/', '(^|/)node_modules/openapi-fetch/'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|\\.data|test)/' },
  },
};
