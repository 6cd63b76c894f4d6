/* unit.test.js: the pure functions of media/valueImage.js (decoding, pixel
 * lookup with canvas scaling and the y flip, value text, colours) under
 * node's test runner. */
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const vi = require('../media/valueImage.js');
const { makeBody } = require('./images.js');

// 3 x 2 pixels, GL pixel (x, y) holds (10 x + y, -x) except (1, 0), not reached.
const body = makeBody({
    expression: 'q', type: 'vec2', width: 3, height: 2, components: 2,
    pixel: (x, y) => (x === 1 && y === 0 ? null : [10 * x + y, -x]),
});

test('decode: rows bottom-up, components in order, coverage per pixel', () => {
    const img = vi.decodeValueImage(body);
    assert.equal(img.width, 3);
    assert.equal(img.height, 2);
    assert.equal(img.reached, 5);
    assert.deepEqual(vi.valueAt(img, 2, 1), { covered: true, values: [21, -2] });
    assert.deepEqual(vi.valueAt(img, 0, 1), { covered: true, values: [1, -0] });
    assert.deepEqual(vi.valueAt(img, 1, 0), { covered: false });
    assert.equal(vi.valueAt(img, 3, 0), null);
    assert.equal(vi.valueAt(img, 0, -1), null);
});

test('decode: malformed bodies are refused with the reason', () => {
    assert.throws(() => vi.decodeValueImage({ ...body, width: 4 }), /values hold 192 bytes, 256 expected/);
    assert.throws(() => vi.decodeValueImage({ ...body, covered: Buffer.alloc(5).toString('base64') }), /coverage holds 5 bytes, 6 expected/);
    assert.throws(() => vi.decodeValueImage({ ...body, height: 0 }), /`height` must be a positive integer/);
    assert.throws(() => vi.decodeValueImage({ ...body, components: 5 }), /5 components/);
    assert.throws(() => vi.decodeValueImage({ ...body, values: undefined }), /base64 text expected/);
    assert.throws(() => vi.decodeValueImage({ ...body, min: ['a'] }), /`min` must be an array of numbers \(or null\)/);
    assert.throws(() => vi.decodeValueImage(null), /no body/);
});

test('pixel from mouse: canvas scaling and the y flip (GL origin bottom-left)', () => {
    const rect = { left: 10, top: 20, width: 300, height: 200 }; // 3x2 shown at 100x
    assert.deepEqual(vi.pixelFromMouse(60, 70, rect, 3, 2), { x: 0, y: 1 });
    assert.deepEqual(vi.pixelFromMouse(260, 170, rect, 3, 2), { x: 2, y: 0 });
    assert.deepEqual(vi.pixelFromMouse(10, 219.9, rect, 3, 2), { x: 0, y: 0 });
    assert.equal(vi.pixelFromMouse(310, 100, rect, 3, 2), null);
    assert.equal(vi.pixelFromMouse(9.9, 100, rect, 3, 2), null);
    assert.equal(vi.pixelFromMouse(100, 220, rect, 3, 2), null);
    // Not an integer scale: 64 pixels over 100 CSS pixels.
    const r2 = { left: 0, top: 0, width: 100, height: 100 };
    assert.deepEqual(vi.pixelFromMouse(99.9, 0.1, r2, 64, 64), { x: 63, y: 63 });
    assert.deepEqual(vi.pixelFromMouse(50, 50, r2, 64, 64), { x: 32, y: 31 });
});

test('values as text: exact float32, NaN/Inf, ints, bools, not reached', () => {
    for (const v of [0.6932831, 0.1, -0.4453125, 3.4028234663852886e38, 1e-45, 16777217, 0.3]) {
        const f = Math.fround(v);
        const s = vi.formatFloat32(f);
        assert.equal(Math.fround(Number(s)), f, `${s} reads back as ${f}`);
    }
    assert.equal(vi.formatFloat32(Math.fround(0.6932831)), '0.6932831');
    assert.equal(vi.formatFloat32(Math.fround(0.1)), '0.1');
    assert.equal(vi.formatNumber(NaN, 'float'), 'NaN');
    assert.equal(vi.formatNumber(-Infinity, 'vec2'), '-Inf');
    assert.equal(vi.formatNumber(7, 'ivec3'), '7');
    assert.equal(vi.formatNumber(1, 'bool'), 'true');
    assert.equal(vi.formatNumber(0.1, 'double'), '0.1');
    assert.equal(vi.formatNumber(0.1, 'float'), '0.1', 'a float that is no float32 is shown as the double it is');
    const img = vi.decodeValueImage(body);
    assert.equal(vi.hoverText(img, 2, 1), 'x 2, y 1: q = (21, -2)');
    assert.equal(vi.hoverText(img, 1, 0), 'x 1, y 0: q not reached');
    assert.equal(vi.hoverText(img, 5, 5), '');
});

test('colours: viridis over the legend, NaN/Inf and unreached colours apart', () => {
    assert.deepEqual(vi.colourOf(-1, -1, 3), [68, 1, 84]);
    assert.deepEqual(vi.colourOf(3, -1, 3), [253, 231, 37]);
    assert.deepEqual(vi.colourOf(9, -1, 3), [253, 231, 37], 'clamped');
    assert.deepEqual(vi.colourOf(2, 2, 2), vi.viridis(0.5));
    assert.deepEqual(vi.colourOf(NaN, 0, 1), [255, 0, 255]);
    assert.notDeepEqual(vi.colourOf(Infinity, 0, 1), vi.colourOf(-Infinity, 0, 1));
    const grey = vi.uncoveredColour(0, 0);
    assert.equal(grey[0], grey[1]);
    assert.equal(grey[1], grey[2]);
    const img = vi.decodeValueImage(body);
    assert.deepEqual(vi.legendRange(img, 0), { min: 0, max: 21 }, 'computed from covered values without min/max');
    assert.deepEqual(vi.legendRange(vi.decodeValueImage({ ...body, min: [5, 6], max: [7, 8] }), 1), { min: 6, max: 8 });
    const none = makeBody({ width: 2, height: 1, pixel: (x) => (x === 0 ? [NaN] : null) });
    const noneImg = vi.decodeValueImage({ ...none, min: [null], max: [null] });
    assert.equal(vi.legendRange(noneImg, 0), null, 'no finite value: no range');
    assert.deepEqual(Array.from(vi.renderRGBA(noneImg, 0).subarray(0, 3)), [255, 0, 255], 'NaN is magenta');
    assert.equal(vi.hoverText(noneImg, 0, 0), 'x 0, y 0: v = NaN');
    const rgba = vi.renderRGBA(img, 0);
    const px = (x, row) => Array.from(rgba.subarray((row * 3 + x) * 4, (row * 3 + x) * 4 + 3));
    // GL row 0 is the canvas's bottom row (row 1), GL row 1 its top row.
    assert.deepEqual(px(0, 1), [68, 1, 84], 'GL (0,0) = 0, the minimum');
    assert.deepEqual(px(2, 0), [253, 231, 37], 'GL (2,1) = 21, the maximum');
    assert.deepEqual(px(1, 1), vi.uncoveredColour(1, 0), 'GL (1,0) not reached');
});

test('component names: vectors by letter, others by index', () => {
    assert.deepEqual(vi.componentNames('float', 1), ['']);
    assert.deepEqual(vi.componentNames('vec3', 3), ['x', 'y', 'z']);
    assert.deepEqual(vi.componentNames('uvec2', 2), ['x', 'y']);
    assert.deepEqual(vi.componentNames('mat2', 4), ['[0]', '[1]', '[2]', '[3]']);
});
