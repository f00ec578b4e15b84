import type { Middleware } from 'koa';
import { validationFailed, type FieldError } from './errors';

// Screens every parsed body and query string before any route or yup schema sees it: text Postgres
// cannot store (NUL), that no SMS can carry (other control characters), that is not Unicode (lone
// surrogates, which would reach a phone as broken UTF-16), and nesting deep enough to exhaust the
// stack of whatever walks it recursively later. One walk, iterative, for every field of every route.

/** Deeper than any request of the interface (the deepest, free-form telemetry, is checked tighter). */
export const MAX_DEPTH = 16;

// The one control-character rule: C0 controls, DEL and C1 controls (U+0080-U+009F: U+0085 is a
// line break to some readers, U+009B an escape sequence's start to terminals), except tab, line feed
// and carriage return, which texts do carry.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** `text` without any character the rule above refuses (for what is stored from headers). */
export const withoutControls = (text: string): string => text.replace(new RegExp(CONTROL.source, 'g'), '');

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Keys that mean something to JavaScript objects rather than to us: every name an object inherits
// (toString, valueOf, hasOwnProperty...: yup looks a body's keys up among a schema's fields as
// `fields[key]` and finds these, a 500; coercion calls an own toString) and `prototype`.
const PROTOTYPE_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

// One cheap test that nearly every string passes; only suspects get the exact ones.
const SUSPECT = /[\u0000-\u001F\u007F-\u009F\uD800-\uDFFF]/;

function textProblem(value: string): string | null {
  if (!SUSPECT.test(value)) return null;
  if (CONTROL.test(value)) return 'must not contain NUL or other control characters';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it has a lone surrogate)';
  return null;
}

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const childPath = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : SIMPLE_KEY.test(key) ? `${path}.${key}` : `${path}[…]`;

// As yup names fields in messages: "telemetry.battery", "to[3]"; the root and array items in full.
const nameOf = (path: string, root: string) => (path.startsWith(`${root}.`) ? path.slice(root.length + 1) : path);

/** Every problem of a JSON value (body) or query object, named as the interface names fields. */
export function inputProblems(value: unknown, root: 'body' | 'query'): FieldError[] {
  const problems: FieldError[] = [];
  // Paths are built only for containers and for what is refused: a send to 100,000 recipients
  // costs one regular expression test per recipient.
  const stack: [unknown, string, string | number | null, number][] = [[value, root, null, 0]];
  while (stack.length > 0 && problems.length < 20) {
    const [item, parent, key, depth] = stack.pop()!;
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem) {
        const path = key === null ? parent : childPath(parent, key);
        problems.push({ field: path, message: `${nameOf(path, root)} ${problem}` });
      }
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    const path = key === null ? parent : childPath(parent, key);
    const name = nameOf(path, root);
    if (depth >= MAX_DEPTH) {
      problems.push({ field: root, message: `${root} is nested too deeply (at most ${MAX_DEPTH} levels)` });
      // Nothing below is worth walking, and the rest of the request is refused anyway.
      break;
    }
    if (Array.isArray(item)) {
      item.forEach((inner, index) => stack.push([inner, path, index, depth + 1]));
      continue;
    }
    for (const [field, inner] of Object.entries(item)) {
      const keyText = textProblem(field);
      const problem = PROTOTYPE_KEYS.has(field)
        ? `${name} must not have a key named ${field}`
        : keyText && `${name} has a key that ${keyText}`;
      if (problem) {
        problems.push({ field: path, message: problem });
        continue;
      }
      stack.push([inner, path, field, depth + 1]);
    }
  }
  return problems;
}

/** Refuses hostile text and nesting in the body or query with 422 validation_failed, naming the fields. */
export function inputGuard(): Middleware {
  return async (ctx, next) => {
    const problems = [...inputProblems(ctx.query, 'query'), ...inputProblems(ctx.request.body, 'body')];
    if (problems.length > 0) throw validationFailed(problems);
    await next();
  };
}
