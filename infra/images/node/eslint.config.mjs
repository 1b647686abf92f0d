// reviewbot's default ESLint flat config, for repositories linted without a config of their own:
//   eslint --config /etc/reviewbot/eslint.config.mjs --format json .     (or: reviewbot-eslint ...)
// Rules: eslint's and typescript-eslint's "recommended" sets, syntax only (no type information,
// so no tsconfig or installed dependencies are needed in the worktree).
import { createRequire } from "node:module";

// Resolve packages from the image's install, not from /etc/reviewbot or the reviewed repository.
const require = createRequire("/opt/reviewbot/node/package.json");
const { defineConfig } = require("eslint/config");
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
const globals = require("globals");

export default defineConfig(
  { ignores: ["**/dist/**", "**/build/**", "**/coverage/**", "**/vendor/**", "**/*.min.js"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}"],
    languageOptions: {
      ecmaVersion: "latest",
      // Code in a reviewed repository may target Node or the browser: know both sets of globals.
      globals: { ...globals.node, ...globals.browser },
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
);
