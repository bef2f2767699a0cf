/**
 * The dependency rule of DESIGN section 2: workflow code imports only @temporalio/workflow,
 * @temporalio/common, other workflow files and pure domain modules (types excepted).
 * Domain modules are pure: they import no I/O layer.
 */
module.exports = {
  forbidden: [
    {
      name: 'workflows-stay-deterministic',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^workflows/', '^domain/', '@temporalio/workflow', '@temporalio/common'],
      },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: ['^(api|activities|workers|db|config|integrations|scripts|web)/'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|\\.data)/' },
  },
};
