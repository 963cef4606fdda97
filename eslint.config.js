// ESLint flat config: @eslint/js and typescript-eslint's recommended rules. Syntax-only (not
// type-aware): `tsc -p tsconfig.all.json` already checks types, and this keeps `npm run lint` fast.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Build output, installed packages, the Python SDK, data and test fixtures (saved pages, byte-exact).
    ignores: [
      '**/dist/',
      '**/node_modules/',
      '**/node_modules',
      'sdk/python/',
      'data/',
      'coverage/',
      'test-results/',
      '.scratch/',
      'test/fixtures/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept for its position or to leave it out of a rest.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Tests read JSON answers of the API under test field by field; typing each body adds nothing there.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The dashboard's one classic script, run in the browser beside uPlot's IIFE build.
    files: ['web/static/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, uPlot: 'readonly' } },
  },
);
