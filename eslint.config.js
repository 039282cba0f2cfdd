import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'tmp/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: {process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', performance: 'readonly', structuredClone: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', document: 'readonly', window: 'readonly', FormData: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly'}},
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
    },
  },
  // zod's `z` (or its default) is the whole of zod: the runtime bundle (scripts/bundle.mjs) then keeps every part of it,
  // ~450 KB more to load at every start; through `import * as z` esbuild keeps only the parts used
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...["ImportSpecifier[imported.name='z']", 'ImportDefaultSpecifier'].map((s) => ({selector: `ImportDeclaration[source.value='zod'][importKind!='type'] > ${s}`, message: "import * as z from 'zod' (see eslint.config.js)"})),
      ],
    },
  },
  // CommonJS files (bin/run.cjs, scripts/cached-require.cjs): CommonJS on purpose, for start-up
  {
    files: ['**/*.cjs'],
    languageOptions: {sourceType: 'commonjs', globals: {require: 'readonly', module: 'readonly', exports: 'writable', __dirname: 'readonly', __filename: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
)
