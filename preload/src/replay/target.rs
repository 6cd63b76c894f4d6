//! The framebuffers of ours a replay draws into ([`DebugTarget`]: the
//! fragment step's value and coverage, a 1x1 one while nothing is
//! rasterized), kept per context and released on `CMD_RELEASE`; and what
//! they mirror of the app's draw framebuffer (size, depth/stencil layout).

use std::sync::Mutex;

use gldbg_proto::shm;

use crate::gl;
use crate::intercept::context::current_context;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::context::{has_context, is_es};
use super::error::Error;

/// The private framebuffer of fragment steps: the value (RGBA32F) and
/// coverage (R32F) renderbuffers at the debug outputs' locations, and a
/// depth/stencil renderbuffer like the app's. Kept per context and reused
/// while size, layout and locations stay the same: allocating three
/// 1080p renderbuffers costs more than replaying a typical draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DebugTarget {
    context: u64,
    purpose: Purpose,
    pub(crate) fbo: u32,
    value_rb: u32,
    coverage_rb: u32,
    /// 0 when the app's framebuffer has no depth or stencil.
    ds_rb: u32,
    /// An R8 renderbuffer (and its framebuffer) the coverage is blitted
    /// into before it is read: the driver then reads its native format
    /// (NVIDIA converts float to bytes on the CPU, 2.5 ms at 1080p). 0 on
    /// GL ES (no float-to-fixed blit) or where it cannot be made.
    pub(crate) bytes_fbo: u32,
    bytes_rb: u32,
    size: (i32, i32),
    ds: Option<(u32, u32)>,
    /// (value, coverage) output locations.
    locs: (u32, u32),
}

/// What a [`DebugTarget`] is for: one of each is kept per context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// The fragment step's values and coverage.
    Fragment,
    /// 1x1, bound while a replay rasterizes nothing (vertex, tess and
    /// geometry steps): GL still validates the draw buffers, and Mesa
    /// refuses a draw into the app's integer buffers from a compatibility
    /// context when the debug program has no fragment shader.
    Discard,
}

static TARGETS: Mutex<Vec<DebugTarget>> = Mutex::new(Vec::new());
/// Targets kept (contexts x purposes): the oldest goes.
const TARGETS_MAX: usize = 8;

/// `CMD_RELEASE`: delete the current context's debug targets (the
/// framebuffer-sized renderbuffers of the fragment step: 1080p takes some
/// 45 MB); the next step makes them again. The app's framebuffer and
/// renderbuffer bindings and its pending GL errors are kept. A driver may
/// hold the storage until the app's next draw rebinds its framebuffer
/// (Mesa frees it when that draw validates its state). The bulk windows
/// are unmapped too.
pub fn release_targets() -> u32 {
    let status = release_gl_targets();
    if has_context() {
        super::trace::release(current_context());
    }
    release_memory();
    status
}

fn release_gl_targets() -> u32 {
    if !has_context() {
        return shm::STATUS_OK;
    }
    let context = current_context();
    let mine: Vec<DebugTarget> = {
        let Ok(mut targets) = TARGETS.lock() else {
            return shm::STATUS_GL_FAILED;
        };
        let (mine, rest) = targets.drain(..).partition(|t| t.context == context);
        *targets = rest;
        mine
    };
    // No GL call at all unless there is something to delete.
    if mine.is_empty() {
        return shm::STATUS_OK;
    }
    let _kept = KeepBindings::save();
    for t in mine {
        if t.still_ours() {
            t.delete();
        }
    }
    shm::STATUS_OK
}

/// The app's framebuffer and renderbuffer bindings and pending GL errors,
/// kept while objects of ours are deleted (deleting a bound one unbinds
/// it); put back, our errors drained, on drop.
pub(crate) struct KeepBindings {
    es2: bool,
    draw: u32,
    read: u32,
    renderbuffer: u32,
}

impl KeepBindings {
    pub(crate) fn save() -> KeepBindings {
        hold_app_errors();
        // GL ES 2 has one framebuffer binding (its enum is the draw binding's).
        let es2 = matches!(super::context::es_version(), Some((2, _)));
        let draw = gl::get_i(gl::DRAW_FRAMEBUFFER_BINDING) as u32;
        KeepBindings {
            es2,
            draw,
            read: match es2 {
                true => draw,
                false => gl::get_i(gl::READ_FRAMEBUFFER_BINDING) as u32,
            },
            renderbuffer: gl::get_i(gl::RENDERBUFFER_BINDING) as u32,
        }
    }
}

impl Drop for KeepBindings {
    fn drop(&mut self) {
        if self.es2 {
            gl::bind_framebuffer(gl::FRAMEBUFFER, self.draw);
        } else {
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, self.draw);
            gl::bind_framebuffer(gl::READ_FRAMEBUFFER, self.read);
        }
        gl::bind_renderbuffer(self.renderbuffer);
        drain_own_errors();
    }
}

/// Give the app back the address space of a debug session: the bulk
/// windows (16 MiB or more) and the heap pages freed above.
fn release_memory() {
    crate::bulk::release();
    // A 1080p RGBA32F target (31.6 MiB) is under glibc's largest mmap
    // threshold: freed, it may stay in the heap.
    // SAFETY: malloc_trim only returns free pages of glibc's arenas; no
    // allocation of the app changes.
    unsafe { libc::malloc_trim(0) };
}

/// Bind this context's 1x1 framebuffer of ours as the draw framebuffer, for
/// a replay with rasterizer discard (the caller's `Saved` rebinds the app's).
pub(crate) fn bind_discard_target() -> Result<(), Error> {
    let context = current_context();
    DebugTarget::get(context, Purpose::Discard, (1, 1), None, (0, 1)).map(|_| ())
}

impl DebugTarget {
    /// This context's target for `purpose`, `size`, `ds` and `locs`, bound
    /// as the draw framebuffer: the cached one, or a new one replacing it.
    pub(crate) fn get(
        context: u64,
        purpose: Purpose,
        size: (i32, i32),
        ds: Option<(u32, u32)>,
        locs: (u32, u32),
    ) -> Result<DebugTarget, Error> {
        let Ok(mut targets) = TARGETS.lock() else {
            return Err(Error::Poisoned("debug target"));
        };
        if let Some(i) = targets
            .iter()
            .position(|t| t.context == context && t.purpose == purpose)
        {
            let old = targets.remove(i);
            if old.still_ours() {
                if old.size == size && old.ds == ds && old.locs == locs {
                    targets.push(old);
                    return Ok(old);
                }
                old.delete();
            }
        }
        let new = DebugTarget::create(context, purpose, size, ds, locs)?;
        if targets.len() >= TARGETS_MAX {
            // Another context's: its names mean nothing here, let them go with it.
            targets.remove(0);
        }
        targets.push(new);
        Ok(new)
    }

    fn create(
        context: u64,
        purpose: Purpose,
        (w, h): (i32, i32),
        ds: Option<(u32, u32)>,
        (value_loc, coverage_loc): (u32, u32),
    ) -> Result<DebugTarget, Error> {
        let t = DebugTarget {
            context,
            purpose,
            fbo: gl::gen_framebuffer(),
            value_rb: gl::gen_renderbuffer(),
            coverage_rb: gl::gen_renderbuffer(),
            ds_rb: if ds.is_some() {
                gl::gen_renderbuffer()
            } else {
                0
            },
            bytes_fbo: 0,
            bytes_rb: 0,
            size: (w, h),
            ds,
            locs: (value_loc, coverage_loc),
        };
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
        let mut storage = vec![
            (t.value_rb, gl::RGBA32F, gl::COLOR_ATTACHMENT0 + value_loc),
            (
                t.coverage_rb,
                gl::R32F,
                gl::COLOR_ATTACHMENT0 + coverage_loc,
            ),
        ];
        if let Some((fmt, att)) = ds {
            storage.push((t.ds_rb, fmt, att));
        }
        for (rb, fmt, att) in storage {
            gl::bind_renderbuffer(rb);
            gl::renderbuffer_storage(fmt, w, h);
            gl::framebuffer_renderbuffer(gl::DRAW_FRAMEBUFFER, att, rb);
        }
        let n = value_loc.max(coverage_loc) + 1;
        let bufs: Vec<u32> = (0..n)
            .map(|i| match i == value_loc || i == coverage_loc {
                true => gl::COLOR_ATTACHMENT0 + i,
                false => gl::NONE,
            })
            .collect();
        gl::draw_buffers(&bufs);
        let status = gl::check_framebuffer_status(gl::DRAW_FRAMEBUFFER);
        if status != gl::FRAMEBUFFER_COMPLETE {
            t.delete();
            return Err(Error::Incomplete(status));
        }
        let mut t = t;
        if purpose == Purpose::Fragment && !is_es() {
            t.bytes_fbo = gl::gen_framebuffer();
            t.bytes_rb = gl::gen_renderbuffer();
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.bytes_fbo);
            gl::bind_renderbuffer(t.bytes_rb);
            gl::renderbuffer_storage(gl::R8, w, h);
            gl::framebuffer_renderbuffer(gl::DRAW_FRAMEBUFFER, gl::COLOR_ATTACHMENT0, t.bytes_rb);
            if gl::check_framebuffer_status(gl::DRAW_FRAMEBUFFER) != gl::FRAMEBUFFER_COMPLETE {
                gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
                gl::delete_framebuffer(t.bytes_fbo);
                gl::delete_renderbuffer(t.bytes_rb);
                (t.bytes_fbo, t.bytes_rb) = (0, 0);
            }
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
        }
        Ok(t)
    }

    /// Whether the names are still ours, and binds the framebuffer: the app
    /// may have destroyed the context and a new one may reuse its handle
    /// and the names.
    fn still_ours(&self) -> bool {
        let rb_is = |rb: u32, fmt: u32| {
            gl::is_renderbuffer(rb) && {
                gl::bind_renderbuffer(rb);
                gl::get_renderbuffer_param(gl::RENDERBUFFER_INTERNAL_FORMAT) as u32 == fmt
                    && gl::get_renderbuffer_param(gl::RENDERBUFFER_WIDTH) == self.size.0
                    && gl::get_renderbuffer_param(gl::RENDERBUFFER_HEIGHT) == self.size.1
            }
        };
        if !gl::is_framebuffer(self.fbo)
            || !rb_is(self.value_rb, gl::RGBA32F)
            || !rb_is(self.coverage_rb, gl::R32F)
        {
            return false;
        }
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, self.fbo);
        let attached = |loc: u32| {
            gl::fb_attachment_param(
                gl::DRAW_FRAMEBUFFER,
                gl::COLOR_ATTACHMENT0 + loc,
                gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
            ) as u32
        };
        attached(self.locs.0) == self.value_rb && attached(self.locs.1) == self.coverage_rb
    }

    /// Delete the objects (the caller rebinds the app's framebuffer after).
    fn delete(&self) {
        gl::bind_framebuffer(gl::FRAMEBUFFER, 0);
        gl::bind_renderbuffer(0);
        gl::delete_framebuffer(self.fbo);
        if self.bytes_fbo != 0 {
            gl::delete_framebuffer(self.bytes_fbo);
        }
        for rb in [self.value_rb, self.coverage_rb, self.ds_rb, self.bytes_rb] {
            if rb != 0 {
                gl::delete_renderbuffer(rb);
            }
        }
    }
}

/// Width and height of the draw framebuffer.
pub(crate) fn framebuffer_size(draw_fb: u32) -> (i32, i32) {
    let viewport = || {
        let v = gl::get_i4(gl::VIEWPORT);
        (v[0] + v[2], v[1] + v[3])
    };
    if draw_fb == 0 {
        return gl::window_size().unwrap_or_else(viewport);
    }
    let mut atts: Vec<u32> = (0..8).map(|i| gl::COLOR_ATTACHMENT0 + i).collect();
    atts.extend([gl::DEPTH_ATTACHMENT, gl::STENCIL_ATTACHMENT]);
    for att in atts {
        let ty = gl::fb_attachment_param(
            gl::DRAW_FRAMEBUFFER,
            att,
            gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
        ) as u32;
        let name = gl::fb_attachment_param(
            gl::DRAW_FRAMEBUFFER,
            att,
            gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
        ) as u32;
        match ty {
            gl::RENDERBUFFER => {
                gl::bind_renderbuffer(name);
                let (w, h) = (
                    gl::get_renderbuffer_param(gl::RENDERBUFFER_WIDTH),
                    gl::get_renderbuffer_param(gl::RENDERBUFFER_HEIGHT),
                );
                if w > 0 && h > 0 {
                    return (w, h);
                }
            }
            gl::TEXTURE => {
                let level = gl::fb_attachment_param(
                    gl::DRAW_FRAMEBUFFER,
                    att,
                    gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL,
                );
                let dsa = crate::intercept::resolve::available(
                    gldbg_proto::api::ids::glGetTextureLevelParameteriv,
                );
                if dsa {
                    let (w, h) = (
                        gl::texture_level_param(name, level, gl::TEXTURE_WIDTH),
                        gl::texture_level_param(name, level, gl::TEXTURE_HEIGHT),
                    );
                    if w > 0 && h > 0 {
                        return (w, h);
                    }
                }
            }
            _ => {}
        }
    }
    viewport()
}

/// Depth/stencil layout of the draw framebuffer, mirrored by the debug FBO:
/// (renderbuffer format, attachment point), or `None` when it has neither
/// (then no depth or stencil test can fail, as in the app).
pub(crate) fn depth_stencil_format(draw_fb: u32) -> Option<(u32, u32)> {
    let (datt, satt) = if draw_fb == 0 {
        (gl::DEPTH, gl::STENCIL)
    } else {
        (gl::DEPTH_ATTACHMENT, gl::STENCIL_ATTACHMENT)
    };
    let q = |att: u32, pname: u32| gl::fb_attachment_param(gl::DRAW_FRAMEBUFFER, att, pname);
    let present = |att: u32| q(att, gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32 != gl::NONE;
    let depth = if present(datt) {
        q(datt, gl::FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE)
    } else {
        0
    };
    let float_depth =
        depth > 0 && q(datt, gl::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) as u32 == gl::FLOAT;
    let stencil = if present(satt) {
        q(satt, gl::FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE)
    } else {
        0
    };
    drain_own_errors();
    match (depth, stencil > 0) {
        (0, false) => None,
        (0, true) => Some((gl::STENCIL_INDEX8, gl::STENCIL_ATTACHMENT)),
        (_, true) if float_depth => Some((gl::DEPTH32F_STENCIL8, gl::DEPTH_STENCIL_ATTACHMENT)),
        (_, true) => Some((gl::DEPTH24_STENCIL8, gl::DEPTH_STENCIL_ATTACHMENT)),
        (_, false) if float_depth => Some((gl::DEPTH_COMPONENT32F, gl::DEPTH_ATTACHMENT)),
        (d, false) if d <= 16 => Some((gl::DEPTH_COMPONENT16, gl::DEPTH_ATTACHMENT)),
        (d, false) if d <= 24 => Some((gl::DEPTH_COMPONENT24, gl::DEPTH_ATTACHMENT)),
        // GL ES has no 32-bit fixed-point depth renderbuffer (glmark2-es2's
        // shadow map is a DEPTH_COMPONENT/UNSIGNED_INT texture): the
        // framebuffer would be incomplete.
        (_, false) if is_es() => Some((gl::DEPTH_COMPONENT32F, gl::DEPTH_ATTACHMENT)),
        (_, false) => Some((gl::DEPTH_COMPONENT32, gl::DEPTH_ATTACHMENT)),
    }
}

/// Clear the depth and/or stencil of the bound draw framebuffer's `att`
/// (depth 1.0, stencil 0), with the masks open.
pub(crate) fn clear_depth_stencil(att: u32) {
    match att {
        gl::DEPTH_STENCIL_ATTACHMENT => gl::clear_buffer_fi(1.0, 0),
        gl::DEPTH_ATTACHMENT => gl::clear_buffer_depth(1.0),
        _ => gl::clear_buffer_stencil(0),
    }
}
