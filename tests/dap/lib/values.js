'use strict';
/**
 * Reading DAP values (strings) as float32 numbers and checking them
 * against the CPU reference: exact (a debugger must never show a wrong
 * value), or within half a unit of the last printed digit where a
 * message prints fixed decimals (a log point's `%f`).
 */

const assert = require('node:assert/strict');
const { f32 } = require('./wave');

/** The numbers in a value's text ("(0.25, -0.5)", "vec2(0.25, -0.5)", "1.5"), in order. */
function numbers(text) {
  assert.equal(typeof text, 'string', `a value is a string: ${JSON.stringify(text)}`);
  const re = /(?<![A-Za-z_\d.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;
  return (text.match(re) || []).map(Number);
}

/** Asserts that `text` shows exactly the float32 values `want`. */
function assertValue(text, want, what) {
  const got = numbers(text).map(f32);
  assert.deepEqual(got, want.map(f32), `${what}: shows ${JSON.stringify(text)}, CPU reference ${JSON.stringify(want)}`);
}

/**
 * Asserts a DAP variable: its type, its value (exact) and, for a vector,
 * children holding the components in order.
 */
async function assertVar(dap, vars, name, type, want, what) {
  const v = vars.get(name);
  assert.ok(v, `${what}: no variable '${name}' in ${JSON.stringify([...vars.keys()])}`);
  if (type) assert.equal(v.type, type, `${what}: type of ${name}: ${JSON.stringify(v)}`);
  assertValue(v.value, want, `${what}: ${name}`);
  if (want.length > 1) {
    assert.ok(v.variablesReference > 0, `${what}: ${name} (a vector) has children: ${JSON.stringify(v)}`);
    const { variables } = await dap.ok('variables', { variablesReference: v.variablesReference });
    assert.deepEqual(
      variables.map((c) => f32(numbers(c.value)[0])),
      want.map(f32),
      `${what}: children of ${name}: ${JSON.stringify(variables)}`
    );
  }
}

/**
 * A variable that has no value yet at this step: absent, or shown as the
 * text "<not yet written>" (never a number).
 */
function assertUnwritten(vars, name, what) {
  const v = vars.get(name);
  if (v) {
    assert.equal(v.value, '<not yet written>', `${what}: ${name} is not yet written: ${JSON.stringify(v)}`);
  }
}

/**
 * Asserts that a printed number `text` is the float32 `want` up to its
 * printed precision (exact when printed with enough digits).
 */
function assertPrinted(text, want, what) {
  const got = Number(text);
  const decimals = (/\.(\d+)/.exec(text) || ['', ''])[1].length;
  const exact = f32(got) === f32(want);
  const close = !/[eE]/.test(text) && Math.abs(got - want) <= 0.5 * 10 ** -decimals + 1e-12;
  assert.ok(exact || close, `${what}: printed ${text}, CPU reference ${want}`);
}

module.exports = { numbers, assertValue, assertVar, assertUnwritten, assertPrinted };
