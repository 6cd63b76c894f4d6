//! Generates the preload's per-function code from `gldbg_proto::api::FUNCTIONS`
//! into `$OUT_DIR/wrappers.rs`:
//!
//! * `FUNCTION_COUNT` and `CLASS` (the `api::classify` bits per function id);
//! * `real::<name>`: typed accessors calling the real function through the
//!   lazily resolved pointer table (`crate::intercept::resolve::ptr`);
//! * one exported `#[unsafe(no_mangle)] extern "C"` wrapper per function:
//!   count the call, test one breakpoint bit, tail-call the real function —
//!   or, when the bit is set (or the real function is not resolved yet),
//!   tail-call its `cold::<name>`, which packs the arguments into words for
//!   the one slow path (`crate::stop::slow`) or resolves the function;
//! * `invoke(id, words)`: calls the real function `id` with arguments decoded
//!   from slot words (used to execute a stopped call, possibly with edited
//!   arguments, and to replay draws);
//! * `WRAPPERS`: the address of each wrapper, returned by the
//!   GetProcAddress hooks.
//!
//! Nothing here is written per function by hand: the only per-function input
//! besides the registry is `api::classify`.

use gldbg_proto::api::{Abi, FUNCTIONS, class, classify};
use std::fmt::Write as _;

fn main() {
    let mut o = String::with_capacity(8 << 20);
    let n = FUNCTIONS.len();
    writeln!(
        o,
        "/// Number of wrapped functions (function ids are `0..FUNCTION_COUNT`)."
    )
    .unwrap();
    writeln!(o, "pub const FUNCTION_COUNT: usize = {n};").unwrap();
    writeln!(o, "/// `gldbg_proto::api::classify` of each function id.").unwrap();
    write!(o, "pub static CLASS: [u32; {n}] = [").unwrap();
    for f in FUNCTIONS.iter() {
        write!(o, "{},", classify(f.name)).unwrap();
    }
    writeln!(o, "];").unwrap();

    // Typed accessors.
    writeln!(
        o,
        "/// Typed calls of the real functions (resolved lazily, never our wrappers)."
    )
    .unwrap();
    writeln!(
        o,
        "#[allow(non_snake_case, dead_code, clippy::too_many_arguments)]"
    )
    .unwrap();
    writeln!(o, "pub mod real {{").unwrap();
    for (id, f) in FUNCTIONS.iter().enumerate() {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.abi.rust_type()))
            .collect();
        let types: Vec<&str> = f.params.iter().map(|p| p.abi.rust_type()).collect();
        let names: Vec<&str> = f.params.iter().map(|p| p.name).collect();
        let ret = f.ret.rust_type();
        writeln!(
            o,
            "#[inline] pub unsafe fn {}({}) -> {ret} {{ \
             // SAFETY: the pointer is the real function (or the zero stub) of this registry signature.\n\
             unsafe {{ let __f: unsafe extern \"C\" fn({}) -> {ret} = ::core::mem::transmute(crate::intercept::resolve::ptr({id})); __f({}) }} }}",
            f.name,
            params.join(", "),
            types.join(", "),
            names.join(", ")
        )
        .unwrap();
    }
    writeln!(o, "}}").unwrap();

    // Exported wrappers. The fast path (count, bit test, resolved pointer,
    // tail call) needs no stack frame: anything else (a stop, the first
    // call's resolution) is in a cold function of the same C signature, so
    // both exits are tail calls and no argument is spilled.
    let mut cold = String::new();
    for (id, f) in FUNCTIONS.iter().enumerate() {
        let c = classify(f.name);
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.abi.rust_type()))
            .collect();
        let types: Vec<&str> = f.params.iter().map(|p| p.abi.rust_type()).collect();
        let names: Vec<&str> = f.params.iter().map(|p| p.name).collect();
        let words: Vec<String> = names
            .iter()
            .map(|n| format!("crate::word::Word::to_word({n})"))
            .collect();
        let ret = f.ret.rust_type();
        let hooked = c & class::HOOKED != 0;
        let hit = match c & class::GPU_SYNC {
            0 => "crate::stop::hit",
            _ => "crate::stop::hit_or_reads",
        };
        let stop = format!(
            "if {hit}({id}) {{ let mut __w = [{}]; return crate::word::Word::from_word(crate::stop::slow({id}, &mut __w)); }}",
            words.join(", ")
        );
        writeln!(
            o,
            "#[unsafe(no_mangle)] #[allow(non_snake_case, clippy::too_many_arguments)]"
        )
        .unwrap();
        writeln!(
            o,
            "pub unsafe extern \"C\" fn {}({}) -> {ret} {{",
            f.name,
            params.join(", ")
        )
        .unwrap();
        writeln!(o, "crate::thread_calls::enter({id});").unwrap();
        if c & class::DRAW != 0 && hooked {
            // glEnd, glCallList(s): not counted while only compiled into a list.
            writeln!(
                o,
                "if crate::intercept::lists::draws({id}, &[{}]) {{ crate::session::count_draw(); }}",
                words.join(", ")
            )
            .unwrap();
        } else if c & class::DRAW != 0 {
            writeln!(o, "crate::intercept::lists::count_draw({id});").unwrap();
        }
        if c & class::FRAME_END != 0 {
            writeln!(o, "crate::session::count_frame();").unwrap();
        }
        if hooked {
            writeln!(o, "{stop}").unwrap();
            writeln!(
                o,
                "crate::word::Word::from_word(crate::intercept::hooks::call({id}, &[{}]))",
                words.join(", ")
            )
            .unwrap();
        } else {
            writeln!(
                o,
                "let __real = crate::intercept::resolve::resolved({id});\n\
                 if {hit}({id}) || __real.is_null() {{\n\
                 // SAFETY: the app's call, forwarded unchanged.\n\
                 return unsafe {{ cold::{}({}) }};\n}}\n\
                 // SAFETY: a resolved real function of this registry signature, the app's arguments.\n\
                 unsafe {{ let __f: unsafe extern \"C\" fn({}) -> {ret} = ::core::mem::transmute(__real); __f({}) }}",
                f.name,
                names.join(", "),
                types.join(", "),
                names.join(", ")
            )
            .unwrap();
            writeln!(
                cold,
                "#[cold] #[inline(never)] pub unsafe extern \"C\" fn {}({}) -> {ret} {{\n{stop}\n\
                 // SAFETY: same arguments, same signature: the app's call, forwarded.\n\
                 unsafe {{ super::real::{}({}) }}\n}}",
                f.name,
                params.join(", "),
                f.name,
                names.join(", ")
            )
            .unwrap();
        }
        writeln!(o, "}}").unwrap();
    }
    writeln!(
        o,
        "/// The wrappers' cold paths: a stop, or the call that resolves the real function."
    )
    .unwrap();
    writeln!(
        o,
        "#[allow(non_snake_case, clippy::too_many_arguments)]\nmod cold {{\n{cold}}}"
    )
    .unwrap();

    // Dispatcher from words.
    writeln!(
        o,
        "/// Calls the real function `id` with arguments decoded from slot words;"
    )
    .unwrap();
    writeln!(
        o,
        "/// returns the result as a word (0 for void and unknown ids)."
    )
    .unwrap();
    writeln!(o, "///").unwrap();
    writeln!(o, "/// # Safety").unwrap();
    writeln!(
        o,
        "/// The words must be valid arguments of that function (pointers included)."
    )
    .unwrap();
    writeln!(o, "#[allow(clippy::unit_arg)]").unwrap();
    writeln!(o, "pub unsafe fn invoke(id: u32, a: &[u64]) -> u64 {{").unwrap();
    writeln!(o, "use crate::word::Word;").unwrap();
    writeln!(o, "let g = |i: usize| a.get(i).copied().unwrap_or(0);").unwrap();
    writeln!(
        o,
        "// SAFETY: the caller guarantees the words are valid arguments."
    )
    .unwrap();
    writeln!(o, "unsafe {{ match id {{").unwrap();
    for (id, f) in FUNCTIONS.iter().enumerate() {
        let args: Vec<String> = (0..f.params.len())
            .map(|i| format!("Word::from_word(g({i}))"))
            .collect();
        if f.ret == Abi::Void {
            writeln!(o, "{id} => {{ real::{}({}); 0 }}", f.name, args.join(", ")).unwrap();
        } else {
            writeln!(
                o,
                "{id} => real::{}({}).to_word(),",
                f.name,
                args.join(", ")
            )
            .unwrap();
        }
    }
    writeln!(o, "_ => 0, }} }} }}").unwrap();

    writeln!(o, "/// Address of each exported wrapper, by function id.").unwrap();
    write!(
        o,
        "pub static WRAPPERS: [crate::intercept::resolve::Addr; {n}] = ["
    )
    .unwrap();
    for f in FUNCTIONS.iter() {
        write!(
            o,
            "crate::intercept::resolve::Addr({} as *const ()),",
            f.name
        )
        .unwrap();
    }
    writeln!(o, "];").unwrap();

    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("wrappers.rs"), o).unwrap();
    println!("cargo:rerun-if-changed=build.rs");
}
