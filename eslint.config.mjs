import tseslint from 'typescript-eslint';

/** Lint: typescript-eslint's recommended rules, and workflow code kept deterministic. */
export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'test-artifacts/', 'bench/results.json'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Workflow code is replayed: it may import only the workflow SDK, shared pure modules, and types.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/(workflow|common)$|\\./|\\.\\./domain/)',
              allowTypeImports: true,
              message: 'Workflow code may import only @temporalio/workflow, @temporalio/common, workflows/ and pure domain/ modules.',
            },
          ],
        },
      ],
    },
  },
);
