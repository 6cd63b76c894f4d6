//! Immediate mode (`glBegin` ... `glEnd`) under a debugger.
//!
//! A debug step replays the stopped draw; for `glEnd` that means the whole
//! `glBegin` ... `glEnd` sequence, and at a stop on `glEnd` GL would still
//! be inside that sequence, where it refuses almost every call a step
//! makes. So, while a session is attached, `glBegin` is deferred: it and
//! the calls allowed before `glEnd` (`class::IMMEDIATE`) are recorded on
//! the thread, pointed-to arguments copied, and `glEnd` issues the
//! recording to GL. A step at a `glEnd` stop replays the recording with its
//! own program ([`replay`]); GL sees the app's sequence once, after the stop.
//!
//! What GL sees differs only for a call not allowed inside `glBegin` /
//! `glEnd` (an app error): it runs before the sequence instead of failing.

use crate::generated::invoke;
use core::cell::RefCell;
use gldbg_proto::api::{FUNCTIONS, Function, ids};

/// One recorded call: its arguments, pointer arguments re-pointed at `data`.
struct Call {
    id: u32,
    args: Vec<u64>,
    /// (argument index, the bytes it pointed at)
    data: Vec<(usize, Vec<u8>)>,
}

impl Call {
    /// The argument words with pointer arguments at our copies (valid
    /// while `self` lives).
    fn words(&self) -> Vec<u64> {
        let mut w = self.args.clone();
        for (i, bytes) in &self.data {
            w[*i] = bytes.as_ptr() as usize as u64;
        }
        w
    }
}

/// A deferred `glBegin(mode)` and the calls since.
struct Recording {
    mode: u64,
    calls: Vec<Call>,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// The hook of every `class::IMMEDIATE` function.
pub fn call(id: u32, args: &[u64]) -> u64 {
    let recording = RECORDING.with(|r| r.borrow().is_some());
    match id {
        ids::glBegin if crate::session::session().is_some() && !recording => {
            let mode = args.first().copied().unwrap_or(0);
            RECORDING.with(|r| {
                *r.borrow_mut() = Some(Recording {
                    mode,
                    calls: Vec::new(),
                })
            });
            0
        }
        ids::glEnd if recording => {
            if let Some(rec) = RECORDING.with(|r| r.borrow_mut().take()) {
                issue(&rec, None);
            }
            0
        }
        _ if recording => {
            let call = record(id, args);
            RECORDING.with(|r| {
                if let Some(rec) = r.borrow_mut().as_mut() {
                    rec.calls.push(call);
                }
            });
            0
        }
        // SAFETY: not recording: the app's call, forwarded unchanged.
        _ => unsafe { invoke(id, args) },
    }
}

/// Whether this thread has a deferred `glBegin` (a `glEnd` stop a debug
/// step can replay).
pub fn pending() -> bool {
    RECORDING.with(|r| r.borrow().is_some())
}

/// Issue the recorded sequence with what is current now (a debug step's
/// program), in primitive mode `mode` (`None`: the app's). False when
/// nothing is recorded.
pub fn replay(mode: Option<u32>) -> bool {
    RECORDING.with(|r| match r.borrow().as_ref() {
        Some(rec) => {
            issue(rec, mode);
            true
        }
        None => false,
    })
}

fn issue(rec: &Recording, mode: Option<u32>) {
    let mode = mode.map_or(rec.mode, u64::from);
    // SAFETY: glBegin/glEnd take a mode / nothing; each recorded call gets
    // its own arguments, pointers at the copies `call.words` keeps alive.
    unsafe {
        invoke(ids::glBegin, &[mode]);
        for call in &rec.calls {
            invoke(call.id, &call.words());
        }
        invoke(ids::glEnd, &[]);
    }
}

/// Record a call, copying what its pointer arguments point at.
fn record(id: u32, args: &[u64]) -> Call {
    let f = &FUNCTIONS[id as usize];
    let mut data = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let ptr = args.get(i).copied().unwrap_or(0);
        if p.c_type.ends_with('*') && ptr != 0 {
            let len = pointee_len(f, i, args);
            // SAFETY: the app passes `len` bytes at `ptr` for this call (the
            // registry's `len`), valid while its call runs.
            let bytes = unsafe { core::slice::from_raw_parts(ptr as usize as *const u8, len) };
            data.push((i, bytes.to_vec()));
        }
    }
    Call {
        id,
        args: args.to_vec(),
        data,
    }
}

/// Bytes behind pointer argument `i` of a call of `f`: the registry's
/// element count (a number, or `COMPSIZE` of the material or list
/// arguments) times the element size.
fn pointee_len(f: &Function, i: usize, args: &[u64]) -> usize {
    let p = &f.params[i];
    let arg = |name: &str| {
        f.params
            .iter()
            .position(|q| q.name == name)
            .and_then(|k| args.get(k).copied())
            .unwrap_or(0) as u32
    };
    let count = match p.len {
        // glMaterial*v: GL_SHININESS one value, GL_COLOR_INDEXES three, colors four.
        "COMPSIZE(pname)" => match arg("pname") {
            0x1601 => 1,
            0x1603 => 3,
            _ => 4,
        },
        // glCallLists: n names of `type`.
        "COMPSIZE(n,type)" => {
            let n = arg("n") as usize;
            return n * match arg("type_") {
                0x1400 | 0x1401 => 1,          // GL_BYTE, GL_UNSIGNED_BYTE
                0x1402 | 0x1403 | 0x1407 => 2, // GL_SHORT, GL_UNSIGNED_SHORT, GL_2_BYTES
                0x1408 => 3,                   // GL_3_BYTES
                _ => 4,
            };
        }
        n => n.parse().unwrap_or(1),
    };
    count * element_size(p.c_type)
}

/// Size of the element type of a pointer's C type (`const GLfloat *`).
fn element_size(c_type: &str) -> usize {
    let t = c_type
        .trim_start_matches("const ")
        .trim_end_matches('*')
        .trim();
    match t {
        "GLdouble" | "GLint64" | "GLuint64" | "GLint64EXT" | "GLuint64EXT" => 8,
        "GLshort" | "GLushort" | "GLhalfNV" => 2,
        "GLbyte" | "GLubyte" | "GLboolean" | "GLchar" => 1,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gldbg_proto::api::function_id;

    fn len_of(name: &str, args: &[u64]) -> usize {
        let f = &FUNCTIONS[function_id(name).unwrap() as usize];
        let i = f
            .params
            .iter()
            .position(|p| p.c_type.ends_with('*'))
            .unwrap();
        pointee_len(f, i, args)
    }

    #[test]
    fn pointed_to_sizes_follow_the_registry() {
        assert_eq!(len_of("glVertex3fv", &[0]), 12);
        assert_eq!(len_of("glColor4ubv", &[0]), 4);
        assert_eq!(len_of("glVertexAttrib4dv", &[0, 0]), 32);
        assert_eq!(len_of("glNormal3sv", &[0]), 6);
        assert_eq!(len_of("glMaterialfv", &[0x0408, 0x1601, 0]), 4);
        assert_eq!(len_of("glMaterialfv", &[0x0408, 0x1201, 0]), 16);
        assert_eq!(len_of("glCallLists", &[3, 0x1403, 0]), 6);
    }
}
