//! parse → step model → successors → instrument every reached position:
//! never a panic. Input: first byte = stage, the rest = shader source.
//!
//! Seeds: `glsl-instrument/fuzz/seeds/` (hand-written) plus piglit's
//! shaders written by `gldbg-corpus seeds glsl-instrument/fuzz/corpus/parse_instrument`.
//! Run: `cd glsl-instrument && RUSTC_BOOTSTRAP=1 cargo fuzz run parse_instrument`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    glsl_instrument::fuzzing::run_bytes(data);
});
