/* valueImage.js: the script of gldbg's value image webview (plain JS, no
 * framework). It shows the body of the DAP `valueImage` response (the value
 * of an expression at every fragment of the draw) as a heatmap with a legend,
 * tells the exact value(s) of the pixel under the mouse (GL window
 * coordinates, origin bottom-left) and posts {command: "focus", x, y} on a
 * click, {command: "history", x, y} on a shift-click. Pixels that no invocation reached with a value say "not reached",
 * never a number.
 *
 * The pure functions (decoding, colours, pixel lookup, text) are exported for
 * node (`module.exports`) and, in a page, as `window.gldbgValueImage`; the UI
 * starts only in a page that has `acquireVsCodeApi` (a VS Code webview, or a
 * test page that declares it as VS Code does).
 */
(function (root) {
    'use strict';

    /** Bytes of a base64 string (atob exists in browsers and node >= 16). */
    function decodeBase64(text) {
        if (typeof text !== 'string') throw new Error('value image: base64 text expected');
        const bin = atob(text);
        const out = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
        return out;
    }

    function positiveInt(body, name) {
        const v = body[name];
        if (!Number.isInteger(v) || v <= 0) {
            throw new Error(`value image: \`${name}\` must be a positive integer, got ${JSON.stringify(v)}`);
        }
        return v;
    }

    /**
     * The value image of a DAP `valueImage` response body: width x height
     * pixels, 4 f64 (little endian) per pixel with `components` of them used,
     * rows bottom-up (row 0 is gl_FragCoord.y = 0.5), and one coverage byte
     * per pixel (1 = reached with a value). Throws on a malformed body.
     */
    function decodeValueImage(body) {
        if (!body || typeof body !== 'object') throw new Error('value image: no body');
        const width = positiveInt(body, 'width');
        const height = positiveInt(body, 'height');
        const components = positiveInt(body, 'components');
        if (components > 4) throw new Error(`value image: ${components} components (at most 4)`);
        const pixels = width * height;
        const raw = decodeBase64(body.values);
        if (raw.length !== pixels * 4 * 8) {
            throw new Error(`value image: values hold ${raw.length} bytes, ${pixels * 32} expected (${width}x${height}, 4 f64 per pixel)`);
        }
        const covered = decodeBase64(body.covered);
        if (covered.length !== pixels) {
            throw new Error(`value image: coverage holds ${covered.length} bytes, ${pixels} expected`);
        }
        const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        const values = new Float64Array(pixels * 4);
        for (let i = 0; i < values.length; i++) values[i] = view.getFloat64(i * 8, true);
        const bound = (name) => {
            const a = body[name];
            if (a === undefined || a === null) return [];
            // null: no finite value in that component (all NaN/Inf, or none reached).
            if (!Array.isArray(a) || a.some((v) => typeof v !== 'number' && v !== null)) {
                throw new Error(`value image: \`${name}\` must be an array of numbers (or null)`);
            }
            return a.slice();
        };
        return {
            expression: String(body.expression ?? ''),
            type: String(body.type ?? ''),
            width,
            height,
            components,
            values,
            covered,
            reached: Number.isInteger(body.reached) ? body.reached : covered.reduce((n, c) => n + (c === 1 ? 1 : 0), 0),
            min: bound('min'),
            max: bound('max'),
        };
    }

    /** Names of the components of a GLSL type for the component selector. */
    function componentNames(type, components) {
        if (components <= 1) return [''];
        if (/^[biud]?vec[234]$/.test(type)) return ['x', 'y', 'z', 'w'].slice(0, components);
        return Array.from({ length: components }, (_, i) => `[${i}]`);
    }

    /**
     * The value at GL window pixel (x, y), origin bottom-left: null outside
     * the image, {covered: false} where no invocation gave a value, else
     * {covered: true, values: [...components]}.
     */
    function valueAt(img, x, y) {
        if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= img.width || y >= img.height) {
            return null;
        }
        const i = y * img.width + x;
        if (img.covered[i] !== 1) return { covered: false };
        return { covered: true, values: Array.from(img.values.subarray(i * 4, i * 4 + img.components)) };
    }

    /** The shortest decimal that reads back as the same float32 (as gldbg's CLI prints). */
    function formatFloat32(v) {
        if (Object.is(v, -0)) return '-0';
        for (let p = 1; p <= 9; p++) {
            const s = v.toPrecision(p);
            if (Math.fround(Number(s)) === v) return String(Number(s));
        }
        return String(v);
    }

    /** One component as text: exact, in the notation of the GLSL type. */
    function formatNumber(v, type) {
        if (Number.isNaN(v)) return 'NaN';
        if (v === Infinity) return 'Inf';
        if (v === -Infinity) return '-Inf';
        if (/^(bool|bvec)/.test(type)) return v !== 0 ? 'true' : 'false';
        if (/^(int|uint|ivec|uvec)/.test(type)) return String(v);
        if (/^(double|dvec|dmat)/.test(type)) return String(v);
        // float types: the value is a float32 widened to f64 by the server.
        return Math.fround(v) === v ? formatFloat32(v) : String(v);
    }

    /** The hover text of pixel (x, y): position, then value(s) or "not reached". */
    function hoverText(img, x, y) {
        const at = valueAt(img, x, y);
        if (at === null) return '';
        const where = `x ${x}, y ${y}`;
        if (!at.covered) return `${where}: ${img.expression} not reached`;
        const parts = at.values.map((v) => formatNumber(v, img.type));
        const value = parts.length === 1 ? parts[0] : `(${parts.join(', ')})`;
        return `${where}: ${img.expression} = ${value}`;
    }

    /**
     * The GL pixel under a mouse position: (clientX, clientY) in CSS pixels,
     * `rect` the canvas's bounding rectangle (left, top, width, height), which
     * may scale the width x height image by any factor. Rows go up in GL, down
     * on screen. Null outside the image.
     */
    function pixelFromMouse(clientX, clientY, rect, width, height) {
        if (!(rect.width > 0) || !(rect.height > 0)) return null;
        const col = Math.floor(((clientX - rect.left) * width) / rect.width);
        const rowFromTop = Math.floor(((clientY - rect.top) * height) / rect.height);
        if (col < 0 || col >= width || rowFromTop < 0 || rowFromTop >= height) return null;
        return { x: col, y: height - 1 - rowFromTop };
    }

    // Viridis (matplotlib's, sampled at 11 stops): perceptually uniform, also in grey.
    const VIRIDIS = [
        [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142], [33, 145, 140],
        [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38], [253, 231, 37],
    ];
    const NAN_RGB = [255, 0, 255];
    const POS_INF_RGB = [255, 255, 255];
    const NEG_INF_RGB = [0, 0, 0];

    /** Viridis at t in [0, 1] (clamped), as [r, g, b] bytes. */
    function viridis(t) {
        const c = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
        const i = Math.min(VIRIDIS.length - 2, Math.floor(c));
        const f = c - i;
        return VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
    }

    /** The colour of value v on a legend from min to max (NaN and Inf get colours of their own). */
    function colourOf(v, min, max) {
        if (Number.isNaN(v)) return NAN_RGB;
        if (v === Infinity) return POS_INF_RGB;
        if (v === -Infinity) return NEG_INF_RGB;
        if (!(max > min)) return viridis(0.5);
        return viridis((v - min) / (max - min));
    }

    /** Uncovered pixels: a grey checkerboard (4x4 cells), which no value colour is. */
    function uncoveredColour(x, y) {
        return ((x >> 2) + (y >> 2)) % 2 === 0 ? [96, 96, 96] : [136, 136, 136];
    }

    /** Legend range of a component: the server's finite min/max, else computed from the covered values. */
    function legendRange(img, component) {
        if (typeof img.min[component] === 'number' && typeof img.max[component] === 'number') {
            return { min: img.min[component], max: img.max[component] };
        }
        let min = Infinity;
        let max = -Infinity;
        for (let i = 0; i < img.width * img.height; i++) {
            const v = img.values[i * 4 + component];
            if (img.covered[i] === 1 && Number.isFinite(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        return min <= max ? { min, max } : null;
    }

    /** RGBA bytes of one component for a canvas ImageData (rows top-down, so GL's rows flip). */
    function renderRGBA(img, component) {
        const { width, height } = img;
        const range = legendRange(img, component) || { min: 0, max: 0 };
        const out = new Uint8ClampedArray(width * height * 4);
        for (let y = 0; y < height; y++) {
            const row = height - 1 - y;
            for (let x = 0; x < width; x++) {
                const i = y * width + x;
                const rgb = img.covered[i] === 1
                    ? colourOf(img.values[i * 4 + component], range.min, range.max)
                    : uncoveredColour(x, y);
                const o = (row * width + x) * 4;
                out[o] = rgb[0];
                out[o + 1] = rgb[1];
                out[o + 2] = rgb[2];
                out[o + 3] = 255;
            }
        }
        return out;
    }

    const api = {
        decodeBase64, decodeValueImage, componentNames, valueAt, formatFloat32, formatNumber,
        hoverText, pixelFromMouse, viridis, colourOf, uncoveredColour, legendRange, renderRGBA,
    };

    /* ---- the page (runs only in a webview) ---- */

    function startUI(vscode, doc, win) {
        const el = (id) => doc.getElementById(id);
        const canvas = el('image');
        const select = el('component');
        const hover = el('hover');
        const message = el('message');
        let img = null;
        /** The app moved since this image: its values are no longer the current ones. */
        let stale = false;

        function showMessage(text) {
            message.textContent = text;
            message.hidden = !text;
        }

        /** Shows `text` instead of the image: values of another step must not stay on screen. */
        function showError(text) {
            img = null;
            showMessage(text);
            el('frame').hidden = true;
            hover.textContent = '';
        }

        /** The app moves: the image is dimmed and tells no value until the next one comes. */
        function markStale(text) {
            stale = true;
            el('frame').classList.add('stale');
            hover.textContent = '';
            showMessage(text);
        }

        function drawLegend(component) {
            const range = legendRange(img, component);
            const bar = el('legend-bar');
            const ctx = bar.getContext('2d');
            for (let i = 0; i < bar.width; i++) {
                const [r, g, b] = viridis(i / (bar.width - 1));
                ctx.fillStyle = `rgb(${r},${g},${b})`;
                ctx.fillRect(i, 0, 1, bar.height);
            }
            el('legend-min').textContent = range ? formatNumber(range.min, img.type) : '—';
            el('legend-max').textContent = range ? formatNumber(range.max, img.type) : '—';
        }

        function draw() {
            const component = Number(select.value) || 0;
            canvas.width = img.width;
            canvas.height = img.height;
            const scale = Math.max(1, Math.min(16, Math.floor(Math.min(512 / img.width, 512 / img.height))));
            canvas.style.width = `${img.width * scale}px`;
            canvas.style.height = `${img.height * scale}px`;
            canvas.getContext('2d').putImageData(new win.ImageData(renderRGBA(img, component), img.width, img.height), 0, 0);
            drawLegend(component);
        }

        function show(body) {
            try {
                img = decodeValueImage(body);
            } catch (e) {
                showError(String(e.message || e));
                return;
            }
            showMessage('');
            stale = false;
            el('frame').classList.remove('stale');
            el('frame').hidden = false;
            el('title').textContent = `${img.expression} (${img.type}), ${img.width}x${img.height}, ${img.reached} reached`;
            const names = componentNames(img.type, img.components);
            select.replaceChildren(...names.map((n, i) => {
                const o = doc.createElement('option');
                o.value = String(i);
                o.textContent = n ? `.${n}` : img.expression;
                return o;
            }));
            el('component-label').hidden = img.components <= 1;
            hover.textContent = '';
            draw();
        }

        function pixelOf(ev) {
            if (!img) return null;
            // The content box: the image is drawn inside any border.
            const r = canvas.getBoundingClientRect();
            const box = {
                left: r.left + canvas.clientLeft,
                top: r.top + canvas.clientTop,
                width: canvas.clientWidth,
                height: canvas.clientHeight,
            };
            return pixelFromMouse(ev.clientX, ev.clientY, box, img.width, img.height);
        }

        canvas.addEventListener('mousemove', (ev) => {
            const p = stale ? null : pixelOf(ev);
            hover.textContent = p ? hoverText(img, p.x, p.y) : '';
        });
        canvas.addEventListener('mouseleave', () => { hover.textContent = ''; });
        canvas.addEventListener('click', (ev) => {
            const p = stale ? null : pixelOf(ev);
            // Shift-click: the pixel's history (which calls wrote it this frame).
            if (p) vscode.postMessage({ command: ev.shiftKey ? 'history' : 'focus', x: p.x, y: p.y });
        });
        select.addEventListener('change', () => { if (img) draw(); });
        win.addEventListener('message', (ev) => {
            const m = ev.data;
            if (!m || typeof m !== 'object') return;
            if (m.command === 'image') show(m.body);
            else if (m.command === 'error') showError(String(m.message));
            else if (m.command === 'stale') markStale(String(m.message || ''));
        });
        vscode.postMessage({ command: 'ready' });
    }

    if (typeof module === 'object' && module.exports) {
        module.exports = api;
    } else {
        root.gldbgValueImage = api;
        // VS Code declares it as a global `const` (no property of window):
        // only the bare name reaches it.
        if (typeof acquireVsCodeApi === 'function') {
            startUI(acquireVsCodeApi(), root.document, root); // eslint-disable-line no-undef
        }
    }
})(typeof window !== 'undefined' ? window : globalThis);
