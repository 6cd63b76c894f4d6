//! Buffers: transform feedback capture, indexed and generic buffer
//! bindings, copies, mapping and barriers.

#[allow(unused_imports)]
use super::*;

// SAFETY (for every `unsafe` block below unless it says otherwise): as in
// the parent module's comment: a real GL entry point called on the stopped
// app thread with its context current; out-pointers point at live local
// buffers at least as large as the query's result; in-pointers point at
// live data of the length passed.

// ----- transform feedback capture (vertex debug steps) -----

pub const POINTS: u32 = 0x0000;
pub const LINES: u32 = 0x0001;
pub const LINE_STRIP: u32 = 0x0003;
pub const TRIANGLES: u32 = 0x0004;
pub const TRANSFORM_FEEDBACK: u32 = 0x8E22;
pub const TRANSFORM_FEEDBACK_BINDING: u32 = 0x8E25;
pub const TRANSFORM_FEEDBACK_BUFFER: u32 = 0x8C8E;
pub const TRANSFORM_FEEDBACK_BUFFER_BINDING: u32 = 0x8C8F;
pub const INTERLEAVED_ATTRIBS: u32 = 0x8C8C;
pub const TRANSFORM_FEEDBACK_VARYINGS: u32 = 0x8C83;
pub const STREAM_READ: u32 = 0x88E1;
pub const MAP_READ_BIT: u32 = 0x0001;

pub fn gen_buffer() -> u32 {
    let mut b = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenBuffers(1, p(&mut b)) };
    b
}
pub fn delete_buffer(mut b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteBuffers(1, p(&mut b)) }
}
/// Storage of `data.len()` bytes for the buffer bound at `target`, filled from `data`.
pub fn buffer_data(target: u32, data: &[u8], usage: u32) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glBufferData(
            target,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
            usage,
        )
    }
}
/// Storage of `size` bytes, contents undefined, for the buffer bound at `target`.
pub fn buffer_data_uninit(target: u32, size: i64, usage: u32) {
    // SAFETY: see the module comment; a null pointer asks for no initial data.
    unsafe { real::glBufferData(target, size, core::ptr::null_mut(), usage) }
}
/// Copy the first `out.len()` bytes of the buffer bound at `target` into `out`.
pub fn get_buffer_bytes(target: u32, out: &mut [u8], es: bool) {
    get_buffer_bytes_at(target, 0, out, es)
}
pub fn bind_buffer_base(target: u32, index: u32, b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindBufferBase(target, index, b) }
}
pub fn gen_transform_feedback() -> u32 {
    let mut t = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenTransformFeedbacks(1, p(&mut t)) };
    t
}
pub fn delete_transform_feedback(mut t: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteTransformFeedbacks(1, p(&mut t)) }
}
pub fn bind_transform_feedback(t: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindTransformFeedback(TRANSFORM_FEEDBACK, t) }
}
/// Capture `names` interleaved, in this order (before linking).
pub fn transform_feedback_varyings(prog: u32, names: &[&str]) {
    let owned: Vec<Vec<u8>> = names.iter().map(|n| cname(n)).collect();
    let mut ptrs: Vec<*const u8> = owned.iter().map(|n| n.as_ptr()).collect();
    // SAFETY: see the module comment; `ptrs` holds `len` NUL-terminated names.
    unsafe {
        real::glTransformFeedbackVaryings(
            prog,
            ptrs.len() as i32,
            ptrs.as_mut_ptr().cast(),
            INTERLEAVED_ATTRIBS,
        )
    }
}
pub fn begin_transform_feedback(mode: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBeginTransformFeedback(mode) }
}
pub fn end_transform_feedback() {
    // SAFETY: see the module comment.
    unsafe { real::glEndTransformFeedback() }
}

// Compute debugging: indexed buffer bindings, buffer copies, barriers.
pub const COMPUTE_SHADER: u32 = 0x91B9;
pub const COMPUTE_WORK_GROUP_SIZE: u32 = 0x8267;
pub const SHADER_STORAGE_BUFFER: u32 = 0x90D2;
/// The most bytes one shader storage block may span (GL 4.3: 16 MiB at least).
pub const MAX_SHADER_STORAGE_BLOCK_SIZE: u32 = 0x90DE;
pub const SHADER_STORAGE_BUFFER_BINDING: u32 = 0x90D3;
pub const SHADER_STORAGE_BUFFER_START: u32 = 0x90D4;
pub const SHADER_STORAGE_BUFFER_SIZE: u32 = 0x90D5;
pub const MAX_SHADER_STORAGE_BUFFER_BINDINGS: u32 = 0x90DD;
pub const ATOMIC_COUNTER_BUFFER: u32 = 0x92C0;
pub const ATOMIC_COUNTER_BUFFER_BINDING: u32 = 0x92C1;
pub const ATOMIC_COUNTER_BUFFER_START: u32 = 0x92C2;
pub const ATOMIC_COUNTER_BUFFER_SIZE: u32 = 0x92C3;
pub const MAX_ATOMIC_COUNTER_BUFFER_BINDINGS: u32 = 0x92DC;
pub const COPY_READ_BUFFER: u32 = 0x8F36;
pub const COPY_WRITE_BUFFER: u32 = 0x8F37;
pub const BUFFER_SIZE: u32 = 0x8764;
pub const DISPATCH_INDIRECT_BUFFER: u32 = 0x90EE;
pub const DISPATCH_INDIRECT_BUFFER_BINDING: u32 = 0x90EF;
pub const ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
pub const DYNAMIC_COPY: u32 = 0x88EA;
pub const MAX_IMAGE_UNITS: u32 = 0x8F38;
pub const IMAGE_BINDING_NAME: u32 = 0x8F3A;
pub const IMAGE_BINDING_ACCESS: u32 = 0x8F3E;
pub const READ_ONLY: u32 = 0x88B8;
// Trace buffers (issue 14).
pub const DYNAMIC_READ: u32 = 0x88E9;
pub const BUFFER_UPDATE_BARRIER_BIT: u32 = 0x0000_0200;
pub const MAX_VERTEX_SHADER_STORAGE_BLOCKS: u32 = 0x90D6;
pub const MAX_GEOMETRY_SHADER_STORAGE_BLOCKS: u32 = 0x90D7;
pub const MAX_TESS_CONTROL_SHADER_STORAGE_BLOCKS: u32 = 0x90D8;
pub const MAX_TESS_EVALUATION_SHADER_STORAGE_BLOCKS: u32 = 0x90D9;
pub const MAX_FRAGMENT_SHADER_STORAGE_BLOCKS: u32 = 0x90DA;
pub const MAX_COMPUTE_SHADER_STORAGE_BLOCKS: u32 = 0x90DB;

/// `glBlendFuncSeparate[i]`: (src rgb, dst rgb, src alpha, dst alpha) of
/// draw buffer `buffer`, or of all of them.
pub fn blend_func_separate(buffer: Option<u32>, f: [u32; 4]) {
    // SAFETY: see the module comment.
    unsafe {
        match buffer {
            Some(i) => real::glBlendFuncSeparatei(i, f[0], f[1], f[2], f[3]),
            None => real::glBlendFuncSeparate(f[0], f[1], f[2], f[3]),
        }
    }
}
pub fn get_i_indexed(pname: u32, i: u32) -> i32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetIntegeri_v(pname, i, p(&mut v)) };
    v[0]
}
pub fn get_i64_indexed(pname: u32, i: u32) -> i64 {
    let mut v = [0i64; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetInteger64i_v(pname, i, p(&mut v)) };
    v[0]
}
pub fn bind_buffer_range(target: u32, index: u32, b: u32, offset: i64, size: i64) {
    // SAFETY: see the module comment.
    unsafe { real::glBindBufferRange(target, index, b, offset, size) }
}
/// Size in bytes of the buffer bound at `target`.
pub fn buffer_size(target: u32) -> i64 {
    let mut v = 0i64;
    // SAFETY: see the module comment.
    unsafe { real::glGetBufferParameteri64v(target, BUFFER_SIZE, p(&mut v)) };
    v
}
/// The usage hint of the buffer bound at `target` (`GL_BUFFER_USAGE`).
pub fn buffer_usage(target: u32) -> u32 {
    const BUFFER_USAGE: u32 = 0x8765;
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetBufferParameteriv(target, BUFFER_USAGE, p(&mut v)) };
    v as u32
}
pub fn copy_buffer_sub_data(read: u32, write: u32, size: i64) {
    // SAFETY: see the module comment.
    unsafe { real::glCopyBufferSubData(read, write, 0, 0, size) }
}
pub fn is_buffer(b: u32) -> bool {
    // SAFETY: see the module comment.
    b != 0 && unsafe { real::glIsBuffer(b) } != 0
}
pub fn memory_barrier(bits: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glMemoryBarrier(bits) }
}
/// Three integers of a program (e.g. `GL_COMPUTE_WORK_GROUP_SIZE`).
pub fn get_program_i3(prog: u32, pname: u32) -> [i32; 3] {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramiv(prog, pname, p(&mut v)) };
    [v[0], v[1], v[2]]
}
pub fn uniform_3ui(loc: i32, v: [u32; 3]) {
    // SAFETY: see the module comment.
    unsafe { real::glUniform3ui(loc, v[0], v[1], v[2]) }
}
/// Run `f` over the first `len` bytes of the buffer bound at `target`,
/// mapped for reading (`None` when it cannot be mapped); unmapped after.
pub fn with_mapped<T>(target: u32, len: usize, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    if len == 0 {
        return Some(f(&[]));
    }
    // SAFETY: see the module comment; the mapping holds `len` readable
    // bytes until glUnmapBuffer, and `f` cannot keep the slice.
    unsafe {
        let m = real::glMapBufferRange(target, 0, len as i64, MAP_READ_BIT);
        if m.is_null() {
            return None;
        }
        let r = f(core::slice::from_raw_parts(m.cast::<u8>(), len));
        real::glUnmapBuffer(target);
        Some(r)
    }
}
/// Copy `out.len()` bytes at `offset` of the buffer bound at `target` into `out`.
pub fn get_buffer_bytes_at(target: u32, offset: i64, out: &mut [u8], es: bool) {
    if out.is_empty() {
        return;
    }
    // SAFETY: see the module comment; `out` holds `len` bytes; a mapping is
    // read only while mapped and unmapped before returning.
    unsafe {
        if es {
            let m = real::glMapBufferRange(target, offset, out.len() as i64, MAP_READ_BIT);
            if !m.is_null() {
                core::ptr::copy_nonoverlapping(m.cast::<u8>(), out.as_mut_ptr(), out.len());
                real::glUnmapBuffer(target);
            }
        } else {
            real::glGetBufferSubData(target, offset, out.len() as i64, out.as_mut_ptr().cast());
        }
    }
}

// ----- memcheck (`replay/memcheck.rs`) -----

pub const TIME_ELAPSED: u32 = 0x88BF;
pub const R32UI: u32 = 0x8236;
pub const RED_INTEGER: u32 = 0x8D94;

pub fn uniform_1uiv(loc: i32, v: &[u32]) {
    // SAFETY: see the module comment; `v.len()` uints.
    unsafe { real::glUniform1uiv(loc, v.len() as i32, v.as_ptr() as *mut c_void) }
}
/// Zero the first `size` bytes of the buffer bound at `target`
/// (`glClearBufferSubData`, GL 4.3; false where the context lacks it:
/// nothing was done).
pub fn clear_buffer_zero(target: u32, size: i64) -> bool {
    if !crate::intercept::resolve::available(gldbg_proto::api::ids::glClearBufferSubData) {
        return false;
    }
    // SAFETY: see the module comment; a null pointer clears to zero.
    unsafe {
        real::glClearBufferSubData(
            target,
            R32UI,
            0,
            size,
            RED_INTEGER,
            super::UNSIGNED_INT,
            core::ptr::null_mut(),
        )
    };
    true
}
/// `glGetProgramResourceiv` properties of a program output.
pub const LOCATION: u32 = 0x930E;
pub const LOCATION_INDEX: u32 = 0x930F;
pub fn get_i64(pname: u32) -> i64 {
    let mut v = [0i64; 16];
    // SAFETY: see the module comment; room for 16 values.
    unsafe { real::glGetInteger64v(pname, p(&mut v)) };
    v[0]
}

// ----- fences (memcheck's armed runs read their findings after them) -----

/// A GL sync object, as its address (0: none was made).
pub type Sync = usize;

/// `glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0)`.
pub fn fence() -> Sync {
    const SYNC_GPU_COMMANDS_COMPLETE: u32 = 0x9117;
    // SAFETY: see the module comment.
    unsafe { real::glFenceSync(SYNC_GPU_COMMANDS_COMPLETE, 0) as usize }
}

/// Whether `sync` has signaled, waiting up to `timeout_ns` (where `flush`,
/// flushing the commands before it first: a fence nothing flushed never
/// signals); false on a timeout or an error.
pub fn wait_sync(sync: Sync, timeout_ns: u64, flush: bool) -> bool {
    const SYNC_FLUSH_COMMANDS_BIT: u32 = 0x1;
    const ALREADY_SIGNALED: u32 = 0x911A;
    const CONDITION_SATISFIED: u32 = 0x911C;
    let flags = if flush { SYNC_FLUSH_COMMANDS_BIT } else { 0 };
    // SAFETY: see the module comment; `sync` is a sync object of ours
    // not deleted yet (the caller's).
    let r = unsafe { real::glClientWaitSync(sync as *mut _, flags, timeout_ns) };
    r == ALREADY_SIGNALED || r == CONDITION_SATISFIED
}

pub fn delete_sync(sync: Sync) {
    // SAFETY: see the module comment; as for `wait_sync`.
    unsafe { real::glDeleteSync(sync as *mut _) }
}

// ----- persistent mappings (memcheck's armed runs' findings blocks) -----

pub const MAP_WRITE_BIT: u32 = 0x0002;
pub const MAP_PERSISTENT_BIT: u32 = 0x0040;
pub const MAP_COHERENT_BIT: u32 = 0x0080;
const BUFFER_MAPPED: u32 = 0x88BC;
const BUFFER_MAP_POINTER: u32 = 0x88BD;
const BUFFER_ACCESS_FLAGS: u32 = 0x911F;
const BUFFER_MAP_LENGTH: u32 = 0x9120;
const BUFFER_IMMUTABLE_STORAGE: u32 = 0x821F;
const BUFFER_STORAGE_FLAGS: u32 = 0x8220;

/// Immutable storage of `size` bytes with `flags` for the buffer bound at
/// `target` (`glBufferStorage`, or `glBufferStorageEXT` where `es`),
/// contents undefined; false where the entry point is missing.
pub fn buffer_storage(target: u32, size: i64, flags: u32, es: bool) -> bool {
    use gldbg_proto::api::ids;
    let id = if es {
        ids::glBufferStorageEXT
    } else {
        ids::glBufferStorage
    };
    if !crate::intercept::resolve::available(id) {
        return false;
    }
    // SAFETY: see the module comment; a null pointer asks for no initial data.
    unsafe {
        match es {
            true => real::glBufferStorageEXT(target, size, core::ptr::null_mut(), flags),
            false => real::glBufferStorage(target, size, core::ptr::null_mut(), flags),
        }
    }
    true
}

/// Map the whole buffer bound at `target` (`len` bytes) with `access`,
/// to stay mapped (`GL_MAP_PERSISTENT_BIT` in `access`); whether it is.
pub fn map_persistent(target: u32, len: usize, access: u32) -> bool {
    // SAFETY: see the module comment; the pointer returned is not kept
    // (`with_persistent_map` asks GL for it again).
    !unsafe { real::glMapBufferRange(target, 0, len as i64, access) }.is_null()
}

/// Run `f` over the first `len` bytes of the buffer bound at `target`
/// through its mapping, where GL says that buffer's immutable storage has
/// `flags` and is mapped whole with `flags` as its access, persistently
/// and coherently, at least `len` bytes long (`None`: it is not; nothing
/// was touched).
pub fn with_persistent_map<T>(
    target: u32,
    len: usize,
    flags: u32,
    f: impl FnOnce(&mut [u8]) -> T,
) -> Option<T> {
    let int = |pname: u32| {
        let mut v = 0i32;
        // SAFETY: see the module comment.
        unsafe { real::glGetBufferParameteriv(target, pname, p(&mut v)) };
        v
    };
    let mut length = 0i64;
    // SAFETY: see the module comment.
    unsafe { real::glGetBufferParameteri64v(target, BUFFER_MAP_LENGTH, p(&mut length)) };
    let ours = int(BUFFER_MAPPED) != 0
        && int(BUFFER_IMMUTABLE_STORAGE) != 0
        && int(BUFFER_STORAGE_FLAGS) as u32 == flags
        && int(BUFFER_ACCESS_FLAGS) as u32 == flags
        && flags & (MAP_PERSISTENT_BIT | MAP_COHERENT_BIT) == MAP_PERSISTENT_BIT | MAP_COHERENT_BIT
        && length >= len as i64
        && buffer_size(target) == length;
    if !ours {
        return None;
    }
    let mut m: *mut c_void = core::ptr::null_mut();
    // SAFETY: see the module comment; one pointer is written.
    unsafe { real::glGetBufferPointerv(target, BUFFER_MAP_POINTER, p(&mut m)) };
    if m.is_null() {
        return None;
    }
    // SAFETY: GL says the buffer bound at `target` is mapped whole at `m`,
    // `length >= len` bytes, for reading and writing (the caller's
    // `flags`), persistently: the mapping stays valid while this thread
    // makes no GL call, and `f` cannot keep the slice. Coherent: what the
    // GPU wrote before a fence that passed is visible, and what we write
    // is seen by later commands.
    Some(f(unsafe {
        core::slice::from_raw_parts_mut(m.cast::<u8>(), len)
    }))
}
