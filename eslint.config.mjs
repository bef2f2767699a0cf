import tseslint from 'typescript-eslint';

/** Lint: typescript-eslint's recommended rules. Which layer may import which is dependency-cruiser's (.dependency-cruiser.cjs). */
export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'test-artifacts/', 'bench/results.json', 'clients/typescript/src/schema.ts', 'clients/typescript/dist/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
