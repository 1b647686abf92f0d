// One flat config for the whole workspace; packages run `eslint src` from their own directory.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // eval/suites: real projects' code, kept as they wrote it (eval/suites/small/README.md).
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "eval/suites/**"] },
  // reviewbot eval's test suite: its known findings name lines of these files as they are.
  { ignores: ["test/eval/fixtures/**"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use an `as const` union instead of an enum." },
        { selector: "ExportDefaultDeclaration", message: "Named exports only." },
      ],
    },
  },
  {
    // Tool configuration files are loaded by their tools through a default export.
    files: ["**/vitest.config.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
);
