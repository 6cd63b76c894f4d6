//! `print`'s expression path: a shader and an expression → parse → type
//! check → layout → instrument the probe → print: never a panic, never a
//! stack overflow. Input: first byte = stage, then the shader source, then
//! `\n//print\n`, then the expression (no separator: the whole rest is an
//! expression on a fixed shader).
//!
//! Seeds: `glsl-instrument/fuzz/seeds_print/` (replayed by
//! `tests/print_seeds.rs`).
//! Run: `cd glsl-instrument && RUSTC_BOOTSTRAP=1 cargo fuzz run print_expr fuzz/seeds_print`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    glsl_instrument::fuzzing::run_print_bytes(data);
});
