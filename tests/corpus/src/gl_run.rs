//! Running shaders on the driver's current context (the context is
//! [`crate::driver::Driver`]'s): the GL entry points, loaded once through
//! `eglGetProcAddress`, and the few calls the real-driver tests make with
//! them: compile a shader, link a program (or get the driver's info log),
//! zeroed storage buffers, block bindings, an `int[]` uniform, a compute
//! dispatch or a covering draw, and reading a buffer back. This module owns
//! every GL function pointer of the crate; `unsafe` stays inside its small
//! functions.

use std::ffi::{CString, c_char, c_void};
use std::marker::PhantomData;

#[link(name = "EGL")]
unsafe extern "C" {
    fn eglGetProcAddress(name: *const c_char) -> *mut c_void;
}

const GL_COMPUTE_SHADER: u32 = 0x91B9;
const GL_COMPILE_STATUS: u32 = 0x8B81;
const GL_LINK_STATUS: u32 = 0x8B82;
const GL_INFO_LOG_LENGTH: u32 = 0x8B84;
const GL_SHADER_STORAGE_BUFFER: u32 = 0x90D2;
const GL_SHADER_STORAGE_BLOCK: u32 = 0x92E6;
const GL_DYNAMIC_COPY: u32 = 0x88EA;
const GL_ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
const GL_FRAMEBUFFER: u32 = 0x8D40;
const GL_RENDERBUFFER: u32 = 0x8D41;
const GL_RGBA32F: u32 = 0x8814;
const GL_COLOR_ATTACHMENT0: u32 = 0x8CE0;
const GL_FRAMEBUFFER_COMPLETE: u32 = 0x8CD5;
const GL_TRIANGLES: u32 = 0x0004;
const GL_RGBA: u32 = 0x1908;
const GL_FLOAT: u32 = 0x1406;
const GL_TEXTURE_2D: u32 = 0x0DE1;
const GL_R32UI: u32 = 0x8236;
const GL_READ_WRITE: u32 = 0x88BA;
const GL_ATOMIC_COUNTER_BUFFER: u32 = 0x92C0;

const GL_VERTEX_SHADER: u32 = 0x8B31;
const GL_FRAGMENT_SHADER: u32 = 0x8B30;

/// A vertex shader whose 3 vertices make a triangle covering the viewport
/// (for [`Gl::covering_program`] and [`Gl::draw_covering`]).
const COVERING: &str = "#version 430
void main() {
    vec2 v[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
    gl_Position = vec4(v[gl_VertexID], 0.0, 1.0);
}
";

type GetIv = unsafe extern "C" fn(u32, u32, *mut i32);
type GetInfoLog = unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char);

/// The GL entry points of the current context (not Send: GL contexts are
/// per thread). Made by [`crate::driver::Driver::new`]; reach it with
/// [`crate::driver::Driver::gl`].
pub struct Gl {
    create_shader: unsafe extern "C" fn(u32) -> u32,
    shader_source: unsafe extern "C" fn(u32, i32, *const *const c_char, *const i32),
    compile_shader: unsafe extern "C" fn(u32),
    get_shader_iv: GetIv,
    get_shader_info_log: GetInfoLog,
    delete_shader: unsafe extern "C" fn(u32),
    create_program: unsafe extern "C" fn() -> u32,
    attach_shader: unsafe extern "C" fn(u32, u32),
    link_program: unsafe extern "C" fn(u32),
    get_program_iv: GetIv,
    get_program_info_log: GetInfoLog,
    use_program: unsafe extern "C" fn(u32),
    gen_buffers: unsafe extern "C" fn(i32, *mut u32),
    bind_buffer: unsafe extern "C" fn(u32, u32),
    buffer_data: unsafe extern "C" fn(u32, isize, *const c_void, u32),
    bind_buffer_base: unsafe extern "C" fn(u32, u32, u32),
    get_buffer_sub_data: unsafe extern "C" fn(u32, isize, isize, *mut c_void),
    dispatch_compute: unsafe extern "C" fn(u32, u32, u32),
    memory_barrier: unsafe extern "C" fn(u32),
    get_program_resource_index: unsafe extern "C" fn(u32, u32, *const c_char) -> u32,
    shader_storage_block_binding: unsafe extern "C" fn(u32, u32, u32),
    get_uniform_location: unsafe extern "C" fn(u32, *const c_char) -> i32,
    program_uniform1iv: unsafe extern "C" fn(u32, i32, i32, *const i32),
    program_uniform1uiv: unsafe extern "C" fn(u32, i32, i32, *const u32),
    gen_framebuffers: unsafe extern "C" fn(i32, *mut u32),
    bind_framebuffer: unsafe extern "C" fn(u32, u32),
    gen_renderbuffers: unsafe extern "C" fn(i32, *mut u32),
    bind_renderbuffer: unsafe extern "C" fn(u32, u32),
    renderbuffer_storage: unsafe extern "C" fn(u32, u32, i32, i32),
    framebuffer_renderbuffer: unsafe extern "C" fn(u32, u32, u32, u32),
    check_framebuffer_status: unsafe extern "C" fn(u32) -> u32,
    viewport: unsafe extern "C" fn(i32, i32, i32, i32),
    draw_arrays: unsafe extern "C" fn(u32, i32, i32),
    read_pixels: unsafe extern "C" fn(i32, i32, i32, i32, u32, u32, *mut c_void),
    finish: unsafe extern "C" fn(),
    gen_textures: unsafe extern "C" fn(i32, *mut u32),
    bind_texture: unsafe extern "C" fn(u32, u32),
    tex_storage_2d: unsafe extern "C" fn(u32, i32, u32, i32, i32),
    bind_image_texture: unsafe extern "C" fn(u32, u32, i32, u8, i32, u32, u32),
    bind_buffer_range: unsafe extern "C" fn(u32, u32, u32, isize, isize),
    _not_send: PhantomData<*mut ()>,
}

/// The entry point `name` as the function type `F` (a field of [`Gl`]).
fn load<F: Copy>(name: &str) -> Result<F, String> {
    let c = CString::new(name).map_err(|_| format!("bad name {name:?}"))?;
    // SAFETY: eglGetProcAddress takes a NUL-terminated name.
    let p = unsafe { eglGetProcAddress(c.as_ptr()) };
    if p.is_null() {
        return Err(format!("no {name}"));
    }
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: `p` is the driver's entry point of that name, whose signature
    // `F` (a field's type) spells as the GL spec does; same size checked.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

impl Gl {
    /// Load every entry point (a GL context must be current on this thread).
    pub(crate) fn load() -> Result<Gl, String> {
        Ok(Gl {
            create_shader: load("glCreateShader")?,
            shader_source: load("glShaderSource")?,
            compile_shader: load("glCompileShader")?,
            get_shader_iv: load("glGetShaderiv")?,
            get_shader_info_log: load("glGetShaderInfoLog")?,
            delete_shader: load("glDeleteShader")?,
            create_program: load("glCreateProgram")?,
            attach_shader: load("glAttachShader")?,
            link_program: load("glLinkProgram")?,
            get_program_iv: load("glGetProgramiv")?,
            get_program_info_log: load("glGetProgramInfoLog")?,
            use_program: load("glUseProgram")?,
            gen_buffers: load("glGenBuffers")?,
            bind_buffer: load("glBindBuffer")?,
            buffer_data: load("glBufferData")?,
            bind_buffer_base: load("glBindBufferBase")?,
            get_buffer_sub_data: load("glGetBufferSubData")?,
            dispatch_compute: load("glDispatchCompute")?,
            memory_barrier: load("glMemoryBarrier")?,
            get_program_resource_index: load("glGetProgramResourceIndex")?,
            shader_storage_block_binding: load("glShaderStorageBlockBinding")?,
            get_uniform_location: load("glGetUniformLocation")?,
            program_uniform1iv: load("glProgramUniform1iv")?,
            program_uniform1uiv: load("glProgramUniform1uiv")?,
            gen_framebuffers: load("glGenFramebuffers")?,
            bind_framebuffer: load("glBindFramebuffer")?,
            gen_renderbuffers: load("glGenRenderbuffers")?,
            bind_renderbuffer: load("glBindRenderbuffer")?,
            renderbuffer_storage: load("glRenderbufferStorage")?,
            framebuffer_renderbuffer: load("glFramebufferRenderbuffer")?,
            check_framebuffer_status: load("glCheckFramebufferStatus")?,
            viewport: load("glViewport")?,
            draw_arrays: load("glDrawArrays")?,
            read_pixels: load("glReadPixels")?,
            finish: load("glFinish")?,
            gen_textures: load("glGenTextures")?,
            bind_texture: load("glBindTexture")?,
            tex_storage_2d: load("glTexStorage2D")?,
            bind_image_texture: load("glBindImageTexture")?,
            bind_buffer_range: load("glBindBufferRange")?,
            _not_send: PhantomData,
        })
    }

    /// A compiled shader of type `ty` (kept: the caller attaches or
    /// deletes it), or the driver's log.
    fn shader(&self, ty: u32, source: &str) -> Result<u32, String> {
        // SAFETY: the context is current (Gl is !Send, made on this thread);
        // pointers are valid for each call.
        unsafe {
            let sh = (self.create_shader)(ty);
            if sh == 0 {
                return Err("glCreateShader failed (stage unsupported?)".into());
            }
            let (ptr, len) = (source.as_ptr() as *const c_char, source.len() as i32);
            (self.shader_source)(sh, 1, &ptr, &len);
            (self.compile_shader)(sh);
            let mut ok = 0;
            (self.get_shader_iv)(sh, GL_COMPILE_STATUS, &mut ok);
            if ok == 0 {
                let log = self.log(sh, self.get_shader_iv, self.get_shader_info_log);
                (self.delete_shader)(sh);
                return Err(log);
            }
            Ok(sh)
        }
    }

    /// Compile `source` as a shader of type `ty` and delete it: Ok or the
    /// driver's log.
    pub fn compile(&self, ty: u32, source: &str) -> Result<(), String> {
        let sh = self.shader(ty, source)?;
        // SAFETY: `sh` is a shader of this context, which is current.
        unsafe { (self.delete_shader)(sh) };
        Ok(())
    }

    /// A linked compute program of `source`, or the driver's log.
    pub fn compute_program(&self, source: &str) -> Result<u32, String> {
        self.program(&[(GL_COMPUTE_SHADER, source)])
    }

    /// A linked program of the fragment shader `fragment` after a vertex
    /// shader covering the viewport with one triangle, or the driver's log.
    pub fn covering_program(&self, fragment: &str) -> Result<u32, String> {
        self.program(&[(GL_VERTEX_SHADER, COVERING), (GL_FRAGMENT_SHADER, fragment)])
    }

    /// A linked program of these shaders (type, source), or the driver's log.
    pub fn program(&self, shaders: &[(u32, &str)]) -> Result<u32, String> {
        // SAFETY: the context is current; `prog` and each shader are its objects.
        unsafe {
            let prog = (self.create_program)();
            for (ty, source) in shaders {
                let sh = self.shader(*ty, source)?;
                (self.attach_shader)(prog, sh);
            }
            (self.link_program)(prog);
            let mut ok = 0;
            (self.get_program_iv)(prog, GL_LINK_STATUS, &mut ok);
            if ok == 0 {
                return Err(self.log(prog, self.get_program_iv, self.get_program_info_log));
            }
            Ok(prog)
        }
    }

    /// The info log of the shader or program `obj` (`iv`, `info` its kind's
    /// entry points).
    fn log(&self, obj: u32, iv: GetIv, info: GetInfoLog) -> String {
        // SAFETY: `buf` holds the log's length; the context is current.
        unsafe {
            let mut n = 0;
            iv(obj, GL_INFO_LOG_LENGTH, &mut n);
            let mut buf = vec![0u8; n.max(1) as usize];
            let mut written = 0;
            let ptr = buf.as_mut_ptr() as *mut c_char;
            info(obj, buf.len() as i32, &mut written, ptr);
            buf.truncate(written.max(0) as usize);
            String::from_utf8_lossy(&buf).into_owned()
        }
    }

    /// A storage buffer of `words` zeroed words bound at `binding` (the
    /// preload zeroes the summary block the same way: `zero_data`).
    pub fn buffer(&self, binding: u32, words: usize) -> u32 {
        let zeros = vec![0u32; words];
        let mut b = 0;
        // SAFETY: `zeros` holds `words` words; the context is current.
        unsafe {
            (self.gen_buffers)(1, &mut b);
            (self.bind_buffer)(GL_SHADER_STORAGE_BUFFER, b);
            let size = (words * 4) as isize;
            let data = zeros.as_ptr() as *const c_void;
            (self.buffer_data)(GL_SHADER_STORAGE_BUFFER, size, data, GL_DYNAMIC_COPY);
            (self.bind_buffer_base)(GL_SHADER_STORAGE_BUFFER, binding, b);
        }
        b
    }

    /// A `w`×`h` R32UI texture bound to image unit `unit` for reading and
    /// writing.
    pub fn image(&self, unit: u32, w: i32, h: i32) -> u32 {
        let mut t = 0;
        // SAFETY: the context is current; `t` is its new texture.
        unsafe {
            (self.gen_textures)(1, &mut t);
            (self.bind_texture)(GL_TEXTURE_2D, t);
            (self.tex_storage_2d)(GL_TEXTURE_2D, 1, GL_R32UI, w, h);
            (self.bind_image_texture)(unit, t, 0, 0, 0, GL_READ_WRITE, GL_R32UI);
        }
        t
    }

    /// A zeroed buffer of `bytes` bound whole (range 0..bytes) at atomic
    /// counter binding `binding`.
    pub fn counter_buffer(&self, binding: u32, bytes: usize) -> u32 {
        let b = self.buffer(binding + 32, bytes.div_ceil(4));
        // SAFETY: `b` is a buffer of at least `bytes`; the context is current.
        unsafe {
            (self.bind_buffer_range)(GL_ATOMIC_COUNTER_BUFFER, binding, b, 0, bytes as isize)
        };
        b
    }

    /// Replace the storage buffer `buffer`'s contents by `words`.
    pub fn write(&self, buffer: u32, words: &[u32]) {
        // SAFETY: `words` holds its length in words; the context is current.
        unsafe {
            (self.bind_buffer)(GL_SHADER_STORAGE_BUFFER, buffer);
            let size = std::mem::size_of_val(words) as isize;
            let data = words.as_ptr() as *const c_void;
            (self.buffer_data)(GL_SHADER_STORAGE_BUFFER, size, data, GL_DYNAMIC_COPY);
        }
    }

    /// The first `words` words of the storage buffer `buffer`, after a
    /// barrier on every earlier write.
    pub fn read(&self, buffer: u32, words: usize) -> Vec<u32> {
        let mut out = vec![0u32; words];
        // SAFETY: `out` holds `words` words; the context is current.
        unsafe {
            (self.memory_barrier)(GL_ALL_BARRIER_BITS);
            (self.bind_buffer)(GL_SHADER_STORAGE_BUFFER, buffer);
            let size = (words * 4) as isize;
            let data = out.as_mut_ptr() as *mut c_void;
            (self.get_buffer_sub_data)(GL_SHADER_STORAGE_BUFFER, 0, size, data);
        }
        out
    }

    /// Bind the storage block `name` of `prog` at `binding`.
    pub fn block_binding(&self, prog: u32, name: &str, binding: u32) {
        let c = CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name; the context is current.
        unsafe {
            let index =
                (self.get_program_resource_index)(prog, GL_SHADER_STORAGE_BLOCK, c.as_ptr());
            assert_ne!(index, u32::MAX, "no block {name}");
            (self.shader_storage_block_binding)(prog, index, binding);
        }
    }

    /// Set the `int[]` uniform `name` of `prog` to `values`.
    pub fn int_array(&self, prog: u32, name: &str, values: &[i32]) {
        let c = CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name, `values` holds its count; the context is current.
        unsafe {
            let loc = (self.get_uniform_location)(prog, c.as_ptr());
            assert!(loc >= 0, "no uniform {name}");
            (self.program_uniform1iv)(prog, loc, values.len() as i32, values.as_ptr());
        }
    }

    /// Set the `uint[]` uniform `name` of `prog` to `values`.
    pub fn uint_array(&self, prog: u32, name: &str, values: &[u32]) {
        let c = CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name, `values` holds its count; the context is current.
        unsafe {
            let loc = (self.get_uniform_location)(prog, c.as_ptr());
            assert!(loc >= 0, "no uniform {name}");
            (self.program_uniform1uiv)(prog, loc, values.len() as i32, values.as_ptr());
        }
    }

    /// Draw a triangle covering a `size`² RGBA32F framebuffer with `prog` (a
    /// [`Gl::covering_program`]);
    /// its pixels (bottom row first).
    pub fn draw_covering(&self, prog: u32, size: i32) -> Vec<[f32; 4]> {
        let (mut fb, mut rb) = (0, 0);
        let mut pixels = vec![[0f32; 4]; (size * size) as usize];
        // SAFETY: a linked program, `pixels` holds size² RGBA floats; the
        // context is current.
        unsafe {
            (self.gen_framebuffers)(1, &mut fb);
            (self.bind_framebuffer)(GL_FRAMEBUFFER, fb);
            (self.gen_renderbuffers)(1, &mut rb);
            (self.bind_renderbuffer)(GL_RENDERBUFFER, rb);
            (self.renderbuffer_storage)(GL_RENDERBUFFER, GL_RGBA32F, size, size);
            let (fbo, color, rbo) = (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER);
            (self.framebuffer_renderbuffer)(fbo, color, rbo, rb);
            assert_eq!(
                (self.check_framebuffer_status)(GL_FRAMEBUFFER),
                GL_FRAMEBUFFER_COMPLETE
            );
            (self.viewport)(0, 0, size, size);
            (self.use_program)(prog);
            (self.draw_arrays)(GL_TRIANGLES, 0, 3);
            (self.finish)();
            let data = pixels.as_mut_ptr() as *mut c_void;
            (self.read_pixels)(0, 0, size, size, GL_RGBA, GL_FLOAT, data);
        }
        pixels
    }

    /// Dispatch `groups` work groups (along x) of the compute program `prog`.
    pub fn dispatch(&self, prog: u32, groups: u32) {
        // SAFETY: a linked program; the context is current.
        unsafe {
            (self.use_program)(prog);
            (self.dispatch_compute)(groups, 1, 1);
        }
    }
}
