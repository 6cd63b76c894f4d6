//! What a replayed shader writes besides its outputs: buffers on storage and
//! atomic counter bindings, textures on image units. A debug step replays
//! the app's draw or dispatch, so without care the app's `atomicAdd`s,
//! `imageAtomicAdd`s and `data[i] += 1`s would run twice. [`ShaderWrites`]
//! copies each of them aside on the GPU before the replay and back after it,
//! behind full memory barriers.
//!
//! Buffers: those at the bindings the program's storage and atomic counter
//! blocks use (every binding when the context cannot list the blocks), each
//! buffer once, whole. Images: the bound level of every texture on an image
//! unit bound for writing, through DSA (GL 4.5); a context without it, or a
//! texture target we cannot copy (multisample, buffer textures), makes the
//! step refuse rather than let the replay write the app's data.

use crate::gl;
use crate::intercept::errors::drain_own_errors;

use super::context::{gl_at_least, program_interface_query};

/// A writable image the replay cannot copy aside (nothing was copied).
#[derive(Debug, thiserror::Error)]
pub(crate) enum WritesError {
    #[error(
        "image unit {unit} is bound for writing; copying it aside for the replay is not \
         implemented in OpenGL ES contexts (this one is OpenGL ES {major}.{minor}), so the \
         replay would write the app's image"
    )]
    OnEs { unit: u32, major: i32, minor: i32 },
    #[error("image unit {unit} is bound for writing; copying it aside for the replay needs GL 4.5")]
    NeedsGl45 { unit: u32 },
    #[error(
        "image unit {unit} is bound for writing to a texture of target {target:#x}, which \
         gldbg cannot copy aside for the replay"
    )]
    Target { unit: u32, target: u32 },
    /// Copying the app's buffers and images back after the replay failed.
    #[error("putting back what the replayed shader wrote failed (GL error {code:#x})")]
    Restore { code: u32 },
}

/// Snapshots of a replay's writable resources, put back when dropped.
pub(crate) struct ShaderWrites {
    /// (app buffer, our copy, size in bytes).
    buffers: Vec<(u32, u32, i64)>,
    images: Vec<ImageCopy>,
}

struct ImageCopy {
    app: u32,
    copy: u32,
    target: u32,
    level: i32,
    size: [i32; 3],
}

impl ShaderWrites {
    /// Copy what program `prog` (current, linked, its bindings final) can
    /// write, but storage blocks `ours` (blocks of ours: a trace block,
    /// `trace.rs`; a memcheck shadow, `memcheck.rs`).
    /// Err: a writable image that cannot be copied (nothing was).
    pub(crate) fn snapshot(prog: u32, ours: &[u32]) -> Result<ShaderWrites, WritesError> {
        let images = writable_images()?;
        let buffers = written_buffers(prog, ours);
        let mut w = ShaderWrites {
            buffers: Vec::new(),
            images: Vec::new(),
        };
        if images.is_empty() && buffers.is_empty() {
            // Nothing to copy: no barrier either (on a software driver it
            // waits for all the work queued so far).
            return Ok(w);
        }
        // The app's earlier shader writes must land before we copy.
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
        for image in images {
            w.images.push(image.snapshot());
        }
        let (read, write) = (
            gl::get_i(gl::COPY_READ_BUFFER) as u32,
            gl::get_i(gl::COPY_WRITE_BUFFER) as u32,
        );
        for b in buffers {
            gl::bind_buffer(gl::COPY_READ_BUFFER, b);
            let size = gl::buffer_size(gl::COPY_READ_BUFFER);
            if size <= 0 {
                continue;
            }
            let copy = gl::gen_buffer();
            gl::bind_buffer(gl::COPY_WRITE_BUFFER, copy);
            gl::buffer_data_uninit(gl::COPY_WRITE_BUFFER, size, gl::DYNAMIC_COPY);
            gl::copy_buffer_sub_data(gl::COPY_READ_BUFFER, gl::COPY_WRITE_BUFFER, size);
            w.buffers.push((b, copy, size));
        }
        gl::bind_buffer(gl::COPY_READ_BUFFER, read);
        gl::bind_buffer(gl::COPY_WRITE_BUFFER, write);
        Ok(w)
    }

    /// How many buffers and images were copied.
    pub(crate) fn counts(&self) -> (u32, u32) {
        (self.buffers.len() as u32, self.images.len() as u32)
    }

    /// Put everything back now (right after the replay, before its errors
    /// are judged): Err when GL failed doing it. Dropping unfinished puts
    /// back too, its errors unseen.
    pub(crate) fn finish(mut self) -> Result<(), WritesError> {
        if self.buffers.is_empty() && self.images.is_empty() {
            return Ok(());
        }
        // The replay's own errors were judged by the caller already.
        drain_own_errors();
        self.restore();
        match drain_own_errors() {
            0 => Ok(()),
            code => Err(WritesError::Restore { code }),
        }
    }

    /// Put everything back and free our copies (once: they are drained).
    fn restore(&mut self) {
        if self.buffers.is_empty() && self.images.is_empty() {
            return;
        }
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
        let (read, write) = (
            gl::get_i(gl::COPY_READ_BUFFER) as u32,
            gl::get_i(gl::COPY_WRITE_BUFFER) as u32,
        );
        for (app, copy, size) in self.buffers.drain(..) {
            gl::bind_buffer(gl::COPY_READ_BUFFER, copy);
            gl::bind_buffer(gl::COPY_WRITE_BUFFER, app);
            gl::copy_buffer_sub_data(gl::COPY_READ_BUFFER, gl::COPY_WRITE_BUFFER, size);
            gl::delete_buffer(copy);
        }
        gl::bind_buffer(gl::COPY_READ_BUFFER, read);
        gl::bind_buffer(gl::COPY_WRITE_BUFFER, write);
        for i in self.images.drain(..) {
            gl::copy_image(i.target, i.copy, i.app, (0, i.level), i.size);
            gl::delete_texture(i.copy);
        }
    }
}

impl Drop for ShaderWrites {
    /// Put everything back (a step that failed before `finish`).
    fn drop(&mut self) {
        self.restore();
    }
}

impl ImageCopy {
    fn snapshot(mut self) -> ImageCopy {
        let dims = match self.target {
            gl::TEXTURE_1D => 1,
            gl::TEXTURE_3D | gl::TEXTURE_2D_ARRAY | gl::TEXTURE_CUBE_MAP_ARRAY => 3,
            _ => 2,
        };
        let format = gl::texture_level_param(self.app, self.level, gl::TEXTURE_INTERNAL_FORMAT);
        self.copy = gl::create_texture(self.target);
        let [w, h, d] = self.size;
        let h = if self.target == gl::TEXTURE_CUBE_MAP {
            w
        } else {
            h
        };
        gl::texture_storage(self.copy, dims, format as u32, w, h, d);
        gl::copy_image(self.target, self.app, self.copy, (self.level, 0), self.size);
        self
    }
}

/// The buffers bound where `prog`'s storage and atomic counter blocks are
/// (but storage blocks `ours`).
fn written_buffers(prog: u32, ours: &[u32]) -> Vec<u32> {
    let mut buffers: Vec<u32> = Vec::new();
    if !super::es::has_shader_writes() {
        return buffers;
    }
    let lists = [
        (
            gl::SHADER_STORAGE_BLOCK,
            gl::SHADER_STORAGE_BUFFER_BINDING,
            gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS,
        ),
        (
            gl::ATOMIC_COUNTER_BUFFER,
            gl::ATOMIC_COUNTER_BUFFER_BINDING,
            gl::MAX_ATOMIC_COUNTER_BUFFER_BINDINGS,
        ),
    ];
    let listed = program_interface_query();
    for (interface, binding, max) in lists {
        let indices: Vec<u32> = if listed {
            let n = gl::program_interface_i(prog, interface, gl::ACTIVE_RESOURCES).clamp(0, 1024);
            (0..n as u32)
                .filter(|r| interface != gl::SHADER_STORAGE_BLOCK || !ours.contains(r))
                .map(|r| gl::program_resource_i(prog, interface, r, gl::BUFFER_BINDING) as u32)
                .collect()
        } else {
            (0..gl::get_i(max).clamp(0, 1024) as u32).collect()
        };
        for i in indices {
            let b = gl::get_i_indexed(binding, i) as u32;
            if b != 0 && !buffers.contains(&b) {
                buffers.push(b);
            }
        }
    }
    buffers
}

/// The textures on image units bound for writing, with what a copy needs.
fn writable_images() -> Result<Vec<ImageCopy>, WritesError> {
    if !super::es::has_shader_writes() {
        return Ok(Vec::new());
    }
    let units = gl::get_i(gl::MAX_IMAGE_UNITS).clamp(0, 1024) as u32;
    let mut out: Vec<ImageCopy> = Vec::new();
    for u in 0..units {
        let tex = gl::get_i_indexed(gl::IMAGE_BINDING_NAME, u) as u32;
        if tex == 0 || gl::get_i_indexed(gl::IMAGE_BINDING_ACCESS, u) as u32 == gl::READ_ONLY {
            continue;
        }
        let level = gl::get_i_indexed(gl::IMAGE_BINDING_LEVEL, u);
        if out.iter().any(|i| i.app == tex && i.level == level) {
            continue;
        }
        if let Some((major, minor)) = super::context::es_version() {
            // Copying needs the texture's target and size (GL 4.5's direct
            // state access), which GL ES cannot ask a texture for.
            return Err(WritesError::OnEs {
                unit: u,
                major,
                minor,
            });
        }
        if !gl_at_least(4, 5) {
            return Err(WritesError::NeedsGl45 { unit: u });
        }
        let target = gl::texture_param_i(tex, gl::TEXTURE_TARGET) as u32;
        let param = |p: u32| gl::texture_level_param(tex, level, p).max(1);
        let size = match target {
            gl::TEXTURE_1D => [param(gl::TEXTURE_WIDTH), 1, 1],
            gl::TEXTURE_1D_ARRAY | gl::TEXTURE_2D | gl::TEXTURE_RECTANGLE => {
                [param(gl::TEXTURE_WIDTH), param(gl::TEXTURE_HEIGHT), 1]
            }
            gl::TEXTURE_CUBE_MAP => [param(gl::TEXTURE_WIDTH), param(gl::TEXTURE_HEIGHT), 6],
            gl::TEXTURE_3D | gl::TEXTURE_2D_ARRAY | gl::TEXTURE_CUBE_MAP_ARRAY => [
                param(gl::TEXTURE_WIDTH),
                param(gl::TEXTURE_HEIGHT),
                param(gl::TEXTURE_DEPTH),
            ],
            other => {
                return Err(WritesError::Target {
                    unit: u,
                    target: other,
                });
            }
        };
        out.push(ImageCopy {
            app: tex,
            copy: 0,
            target,
            level,
            size,
        });
    }
    Ok(out)
}
