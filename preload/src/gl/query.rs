//! Query objects (`intercept::queries`).

#[allow(unused_imports)]
use super::*;

// SAFETY (for every `unsafe` block below unless it says otherwise): as in
// the parent module's comment: a real GL entry point called on the stopped
// app thread with its context current; out-pointers point at live local
// buffers at least as large as the query's result; in-pointers point at
// live data of the length passed.

// ----- query objects (queries.rs) -----

pub const CURRENT_QUERY: u32 = 0x8865;
pub const QUERY_RESULT: u32 = 0x8866;
pub const QUERY_RESULT_AVAILABLE: u32 = 0x8867;
pub const QUERY_RESULT_NO_WAIT: u32 = 0x9194;
pub const QUERY_BUFFER: u32 = 0x9192;
pub const QUERY_BUFFER_BINDING: u32 = 0x9193;

pub fn gen_query() -> u32 {
    let mut q = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenQueries(1, p(&mut q)) };
    q
}
pub fn delete_query(mut q: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteQueries(1, p(&mut q)) }
}
/// `glBeginQuery`, or `glBeginQueryIndexed` for a vertex stream above 0.
pub fn begin_query(target: u32, index: u32, q: u32) {
    // SAFETY: see the module comment.
    unsafe {
        if index == 0 {
            real::glBeginQuery(target, q)
        } else {
            real::glBeginQueryIndexed(target, index, q)
        }
    }
}
pub fn end_query(target: u32, index: u32) {
    // SAFETY: see the module comment.
    unsafe {
        if index == 0 {
            real::glEndQuery(target)
        } else {
            real::glEndQueryIndexed(target, index)
        }
    }
}
/// The query active on `target`'s vertex stream `index` (0: none).
pub fn current_query_indexed(target: u32, index: u32) -> u32 {
    if index == 0 {
        return current_query(target);
    }
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetQueryIndexediv(target, index, CURRENT_QUERY, p(&mut v)) };
    v[0] as u32
}
/// A query object's `pname` (result, availability) as 64 bits where the
/// context has `glGetQueryObjectui64v`, else through the 32-bit query.
/// The caller unbinds `GL_QUERY_BUFFER` (else GL writes into that buffer).
pub fn query_object_u64(q: u32, pname: u32) -> u64 {
    use gldbg_proto::api::ids;
    let mut v = [0u64; 2];
    // SAFETY: see the module comment.
    unsafe {
        if crate::intercept::resolve::available(ids::glGetQueryObjectui64v) {
            real::glGetQueryObjectui64v(q, pname, p(&mut v));
        } else {
            real::glGetQueryObjectuiv(q, pname, p(&mut v));
            v[0] &= 0xffff_ffff;
        }
    }
    v[0]
}
pub fn buffer_sub_data(target: u32, offset: usize, data: &[u8]) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glBufferSubData(
            target,
            offset as i64,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
        )
    }
}
pub fn named_buffer_sub_data(buffer: u32, offset: usize, data: &[u8]) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glNamedBufferSubData(
            buffer,
            offset as i64,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
        )
    }
}
pub fn begin_conditional_render(q: u32, mode: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBeginConditionalRender(q, mode) }
}
