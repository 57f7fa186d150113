// ESLint for the browser table's JavaScript (make test runs it): the recommended rules and a
// few more, on the modules of static/ (board/, games/), the classic scripts beside them and
// the unit tests (tests/js, node --test).
import js from "@eslint/js";
import globals from "globals";

const rules = {
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
  "no-shadow": "error",
  "no-implicit-globals": "error",
  "no-use-before-define": ["error", { functions: false, classes: true, variables: true }],
  eqeqeq: "error",
  "prefer-const": "error",
  "no-var": "off",
  curly: "error",
};

export default [
  { ignores: ["node_modules/", "tests/typescript/", "tests/browser/axe/", ".venv/"] },
  js.configs.recommended,
  {
    files: ["service/http/web/static/board/**/*.js", "service/http/web/static/games/**/*.js"],
    languageOptions: { sourceType: "module", ecmaVersion: 2022, globals: globals.browser },
    rules,
  },
  {
    files: ["service/http/web/static/*.js"],
    languageOptions: { sourceType: "script", ecmaVersion: 2022, globals: globals.browser },
    rules,
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { sourceType: "module", ecmaVersion: 2022, globals: globals.node },
    rules,
  },
];
