import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'schemas/compiled/**', 'node_modules/**', 'bench/results/**', '**/*.generated.ts', 'coverage/**', '.tap/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: {process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', fetch: 'readonly', performance: 'readonly', queueMicrotask: 'readonly'}},
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', {checkLoops: false}],
    },
  },
)
