/* images.js: value image bodies (the DAP `valueImage` response format) made
 * from arrays, for the unit tests of the webview's pure functions. */
'use strict';

/**
 * A body of width x height pixels: `pixel(x, y)` gives the components of GL
 * pixel (x, y) (origin bottom-left) or null where nothing was reached.
 */
function makeBody({ expression = 'v', type = 'float', width, height, components = 1, pixel }) {
    const values = Buffer.alloc(width * height * 4 * 8);
    const covered = Buffer.alloc(width * height);
    let reached = 0;
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
            const v = pixel(x, y);
            const i = y * width + x;
            if (v === null) continue;
            covered[i] = 1;
            reached++;
            v.forEach((c, k) => values.writeDoubleLE(c, (i * 4 + k) * 8));
        }
    }
    return {
        expression, type, width, height, components, reached,
        values: values.toString('base64'),
        covered: covered.toString('base64'),
    };
}

module.exports = { makeBody };
