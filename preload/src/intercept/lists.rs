//! Display lists under a debugger: which draw calls draw.
//!
//! Between `glNewList(list, GL_COMPILE)` and `glEndList` a draw call
//! (`glEnd`, `glDrawArrays`, `glCallList` ...) is compiled into the list
//! and draws nothing: it gets no draw number, `break draw` does not stop at
//! it and a step refuses it. With `GL_COMPILE_AND_EXECUTE` it draws. A list
//! that a draw call was compiled into draws when it is called, so
//! `glCallList(s)` is a draw when one of its lists is (a list gldbg did not
//! see compiled counts as drawing: it cannot tell).
//!
//! Lists are remembered per process (one namespace: good enough for apps
//! with one share group, as the daemon's shader records).

use crate::generated::invoke;
use core::cell::Cell;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use gldbg_proto::api::ids;
use std::collections::HashMap;
use std::sync::Mutex;

const COMPILE: u32 = 0x1300;
const COMPILE_AND_EXECUTE: u32 = 0x1301;

/// Threads between `glNewList` and `glEndList` (the draw wrappers' fast
/// path looks no further while it is 0).
static OPEN: AtomicU32 = AtomicU32::new(0);

/// Every list seen compiled: whether a draw call was compiled into it.
static DRAWING: Mutex<Option<HashMap<u32, bool>>> = Mutex::new(None);

thread_local! {
    /// The list this thread compiles and its mode (0: none).
    static CURRENT: Cell<(u32, u32)> = const { Cell::new((0, 0)) };
}

/// The hook of `glNewList` and `glEndList`.
pub fn call(id: u32, args: &[u64]) -> u64 {
    // SAFETY: the app's own call, forwarded unchanged.
    let r = unsafe { invoke(id, args) };
    let (open, _) = CURRENT.with(|c| c.get());
    match id {
        ids::glNewList if open == 0 => {
            let list = args.first().copied().unwrap_or(0) as u32;
            let mode = args.get(1).copied().unwrap_or(0) as u32;
            // GL refuses list 0 and other modes (nothing is compiled then).
            if list != 0 && matches!(mode, COMPILE | COMPILE_AND_EXECUTE) {
                CURRENT.with(|c| c.set((list, mode)));
                OPEN.fetch_add(1, Relaxed);
                set_drawing(list, false);
            }
        }
        ids::glEndList if open != 0 => {
            CURRENT.with(|c| c.set((0, 0)));
            OPEN.fetch_sub(1, Relaxed);
        }
        _ => {}
    }
    r
}

/// Whether this thread is between `glNewList` and `glEndList`: GL would
/// record a replay's calls into the list.
pub fn compiling() -> bool {
    CURRENT.with(|c| c.get().0 != 0)
}

/// Count a draw of a wrapper without a hook (`Header::draw_count`), unless
/// it is only compiled into a display list.
#[inline(always)]
pub fn count_draw(id: u32) {
    if OPEN.load(Relaxed) == 0 || draws(id, &[]) {
        crate::session::count_draw();
    }
}

/// Whether the draw-class call `id` with `args` draws now; a call inside
/// `glNewList` marks the list as drawing when it draws once called.
pub fn draws(id: u32, args: &[u64]) -> bool {
    let called = match id {
        ids::glCallList => list_draws(args.first().copied().unwrap_or(0) as u32),
        ids::glCallLists => call_lists_draw(args),
        _ => true,
    };
    let (list, mode) = CURRENT.with(|c| c.get());
    if list != 0 && called {
        set_drawing(list, true);
    }
    called && (list == 0 || mode != COMPILE)
}

fn set_drawing(list: u32, draws: bool) {
    if let Ok(mut m) = DRAWING.lock() {
        m.get_or_insert_with(HashMap::new).insert(list, draws);
    }
}

/// Whether `list` draws (true when it was never seen compiled).
fn list_draws(list: u32) -> bool {
    DRAWING
        .lock()
        .ok()
        .and_then(|m| m.as_ref().and_then(|m| m.get(&list).copied()))
        .unwrap_or(true)
}

/// `glCallLists(n, type, lists)`: whether one of the lists (offset by
/// `GL_LIST_BASE`) draws.
fn call_lists_draw(args: &[u64]) -> bool {
    let n = args.first().copied().unwrap_or(0) as i32;
    let ty = args.get(1).copied().unwrap_or(0) as u32;
    let ptr = args.get(2).copied().unwrap_or(0) as usize;
    if n <= 0 || ptr == 0 {
        return false;
    }
    let size = match ty {
        0x1400 | 0x1401 => 1,
        0x1402 | 0x1403 | 0x1407 => 2,
        0x1408 => 3,
        0x1404..=0x1406 | 0x1409 => 4,
        // An invalid type: GL raises the error and calls nothing.
        _ => return false,
    };
    // SAFETY: the app passes `n` names of `type` at `ptr` (GL's contract
    // for glCallLists), valid while its call runs.
    let bytes = unsafe { core::slice::from_raw_parts(ptr as *const u8, n as usize * size) };
    let base = crate::gl::get_i(crate::gl::LIST_BASE) as u32;
    bytes.chunks(size).any(|b| {
        let name = match ty {
            0x1400 => b[0] as i8 as i32 as u32,
            0x1401 => b[0] as u32,
            0x1402 => i16::from_ne_bytes([b[0], b[1]]) as i32 as u32,
            0x1403 => u16::from_ne_bytes([b[0], b[1]]) as u32,
            0x1404 | 0x1405 => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
            0x1406 => f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as u32,
            // GL_2_BYTES, GL_3_BYTES, GL_4_BYTES: big-endian byte groups.
            _ => b.iter().fold(0u32, |a, &x| (a << 8) | x as u32),
        };
        list_draws(base.wrapping_add(name))
    })
}

/// Replay a `glCallList(s)` draw for a debug step: the lists run with the
/// current (debug) program, and what else they change (matrices, current
/// color and normal, enables) is put back after, since the app's own call
/// runs them again.
pub fn replay(id: u32, args: &[u64]) {
    const ATTRIB_STACK_DEPTH: u32 = 0x0BB0;
    const MAX_ATTRIB_STACK_DEPTH: u32 = 0x0D35;
    const ALL_ATTRIB_BITS: u64 = 0xFFFF_FFFF;
    const MATRIX_MODE: u32 = 0x0BA0;
    // (matrix mode, its matrix query)
    const MATRICES: [(u64, u64); 3] = [(0x1700, 0x0BA6), (0x1701, 0x0BA7), (0x1702, 0x0BA8)];
    let push = crate::gl::get_i(ATTRIB_STACK_DEPTH) < crate::gl::get_i(MAX_ATTRIB_STACK_DEPTH);
    let mode = crate::gl::get_i(MATRIX_MODE) as u64;
    let mut saved = [[0f64; 16]; 3];
    // SAFETY: compatibility-context state calls with constant arguments;
    // each matrix query writes 16 doubles into its own array.
    unsafe {
        if push {
            invoke(ids::glPushAttrib, &[ALL_ATTRIB_BITS]);
        }
        for (m, &(_, query)) in saved.iter_mut().zip(&MATRICES) {
            invoke(ids::glGetDoublev, &[query, m.as_mut_ptr() as usize as u64]);
        }
        // The stopped call's own arguments (its pointers still valid).
        invoke(id, args);
        for (m, &(matrix_mode, _)) in saved.iter().zip(&MATRICES) {
            invoke(ids::glMatrixMode, &[matrix_mode]);
            invoke(ids::glLoadMatrixd, &[m.as_ptr() as usize as u64]);
        }
        invoke(ids::glMatrixMode, &[mode]);
        if push {
            invoke(ids::glPopAttrib, &[]);
        }
    }
}
