//! The image a pixel history follows (issue 16, ABI 14): the window's
//! colour buffer, a texture level (and layer) or a renderbuffer, named by
//! a [`TexelRef`]. [`ReadImage`] binds it as the read framebuffer (ours,
//! with the image as its one attachment; the window's own, its read buffer
//! put back), [`draw_buffer_of`] says which draw buffer of the bound draw
//! framebuffer writes it, and `CMD_PIXEL_READ` ([`pixel_read`]) reads one
//! texel. The caller's `Saved` (or this command's) puts the bindings back.

use gldbg_proto::shm::{self, PixelReadReply, PixelReadRequest, PixelValue, TexelRef};

use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::bulk::{Bulk, align8};
use super::context::{has_context, is_es};
use super::error::Error;
use super::state::Saved;

/// `CMD_PIXEL_READ`: the texel, its image's size and how the current draw
/// framebuffer writes the image.
pub fn pixel_read(_id: u32, _args: &[u64]) -> u32 {
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    let req: PixelReadRequest = bulk.read(shm::BULK_REQUEST);
    let mut reply = PixelReadReply {
        draw_buffer: -1,
        ..Default::default()
    };
    if !has_context() {
        bulk.write(shm::BULK_REPLY, &reply);
        return shm::STATUS_NO_CONTEXT;
    }
    hold_app_errors();
    let result = {
        let saved = Saved::capture(1);
        let r = read(&req.texel, saved.draw_fb, &mut reply);
        saved.restore();
        r
    };
    drain_own_errors();
    let status = match result {
        Ok(()) => shm::STATUS_OK,
        Err(e) => {
            let at = align8(shm::BULK_REPLY + size_of::<PixelReadReply>());
            reply.log = bulk.put(at, e.to_string().as_bytes());
            e.status()
        }
    };
    bulk.write(shm::BULK_REPLY, &reply);
    status
}

fn read(t: &TexelRef, draw_fb: u32, reply: &mut PixelReadReply) -> Result<(), Error> {
    let t = &match t.kind {
        shm::TEXEL_CURRENT => current_image(t, draw_fb)?,
        // A layered texture's texel is in one layer: the first unless named.
        shm::TEXEL_TEXTURE if t.layer < 0 && texture_is_layered(t.name) == Some(true) => {
            TexelRef { layer: 0, ..*t }
        }
        _ => *t,
    };
    reply.resolved = *t;
    reply.framebuffer = draw_fb;
    reply.draw_buffer = draw_buffer_of(t, draw_fb).map_or(-1, |i| i as i32);
    reply.scissor_on = u32::from(gl::is_enabled(gl::SCISSOR_TEST));
    reply.scissor = gl::scissor_box(None);
    let image = ReadImage::bind(t)?;
    (reply.width, reply.height) = image.size;
    if !image.holds(t) {
        return Ok(());
    }
    reply.found = 1;
    reply.kind = image.kind;
    reply.format = image.format().unwrap_or(0);
    reply.value.color = image.color(t.x, t.y);
    drop(image);
    super::pipeline::check_gl("reading the texel")
}

/// The followed image bound as the read framebuffer (ours, or the
/// window's with its read buffer set to the buffer the app draws to);
/// ours is deleted and the window's read buffer put back on drop.
pub(crate) struct ReadImage {
    /// Our framebuffer (0: the window's).
    fbo: u32,
    /// The window's read buffer before ours was set.
    window_read_buffer: Option<u32>,
    /// `PIXEL_*` of the image.
    pub(crate) kind: u32,
    pub(crate) size: (i32, i32),
    /// The attachment the image is read from (of `fbo`, or the window's
    /// colour buffer as `glGetFramebufferAttachmentParameteriv` names it).
    attachment: u32,
}

impl ReadImage {
    /// Bind the image of `t`. Errors: no such texture or renderbuffer, or
    /// an image GL cannot read (an incomplete framebuffer).
    pub(crate) fn bind(t: &TexelRef) -> Result<ReadImage, Error> {
        let mut image = ReadImage {
            fbo: 0,
            window_read_buffer: None,
            kind: shm::PIXEL_FLOAT,
            size: (0, 0),
            attachment: gl::COLOR_ATTACHMENT0,
        };
        match t.kind {
            shm::TEXEL_WINDOW => {
                let buffer = window_draw_buffer();
                gl::bind_framebuffer(gl::READ_FRAMEBUFFER, 0);
                image.window_read_buffer = Some(gl::get_i(gl::READ_BUFFER) as u32);
                gl::read_buffer(buffer);
                image.attachment = match (is_es(), buffer) {
                    (true, _) => gl::BACK,
                    (false, gl::FRONT | gl::FRONT_LEFT) => gl::FRONT_LEFT,
                    (false, _) => gl::BACK_LEFT,
                };
                image.size = super::target::framebuffer_size(0);
            }
            shm::TEXEL_TEXTURE | shm::TEXEL_RENDERBUFFER => {
                let texture = t.kind == shm::TEXEL_TEXTURE;
                let exists = match texture {
                    true => gl::is_texture(t.name),
                    false => gl::is_renderbuffer(t.name),
                };
                if t.name == 0 || !exists {
                    let what = if texture { "texture" } else { "renderbuffer" };
                    return Err(Error::Unsupported(format!("there is no {what} {}", t.name)));
                }
                image.fbo = gl::gen_framebuffer();
                gl::bind_framebuffer(gl::READ_FRAMEBUFFER, image.fbo);
                if texture {
                    gl::framebuffer_texture(
                        gl::READ_FRAMEBUFFER,
                        gl::COLOR_ATTACHMENT0,
                        t.name,
                        t.level,
                        t.layer,
                    );
                } else {
                    gl::framebuffer_renderbuffer(
                        gl::READ_FRAMEBUFFER,
                        gl::COLOR_ATTACHMENT0,
                        t.name,
                    );
                }
                gl::read_buffer(gl::COLOR_ATTACHMENT0);
                let status = gl::check_framebuffer_status(gl::READ_FRAMEBUFFER);
                drain_own_errors();
                if status != gl::FRAMEBUFFER_COMPLETE {
                    return Err(Error::Unsupported(format!(
                        "{} {} level {} cannot be read (framebuffer status 0x{status:04X})",
                        if texture { "texture" } else { "renderbuffer" },
                        t.name,
                        t.level
                    )));
                }
                image.size = attachment_size(t);
            }
            k => return Err(Error::Unsupported(format!("unknown image kind {k}"))),
        }
        image.kind = match gl::fb_attachment_param(
            gl::READ_FRAMEBUFFER,
            image.attachment,
            gl::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE,
        ) as u32
        {
            gl::INT => shm::PIXEL_INT,
            gl::UNSIGNED_INT => shm::PIXEL_UINT,
            _ => shm::PIXEL_FLOAT,
        };
        drain_own_errors();
        Ok(image)
    }

    /// Whether the texel of `t` is inside the image.
    pub(crate) fn holds(&self, t: &TexelRef) -> bool {
        (0..self.size.0).contains(&t.x) && (0..self.size.1).contains(&t.y)
    }

    /// The colour at (`x`, `y`) as bits of `kind`.
    pub(crate) fn color(&self, x: i32, y: i32) -> [u32; 4] {
        read_color(x, y, self.kind)
    }

    /// The image's sized internal format, from its sizes, component type
    /// and encoding (`None`: one gldbg does not know): a copy of that format
    /// blends exactly as the image does (see [`copy_of`]).
    pub(crate) fn format(&self) -> Option<u32> {
        let q = |pname| gl::fb_attachment_param(gl::READ_FRAMEBUFFER, self.attachment, pname);
        let sizes = [
            q(gl::FRAMEBUFFER_ATTACHMENT_RED_SIZE),
            q(gl::FRAMEBUFFER_ATTACHMENT_GREEN_SIZE),
            q(gl::FRAMEBUFFER_ATTACHMENT_BLUE_SIZE),
            q(gl::FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE),
        ];
        let ty = q(gl::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) as u32;
        let srgb = q(gl::FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING) as u32 == gl::SRGB;
        drain_own_errors();
        copy_format(sizes, ty, srgb)
    }
}

impl Drop for ReadImage {
    fn drop(&mut self) {
        if let Some(b) = self.window_read_buffer {
            gl::bind_framebuffer(gl::READ_FRAMEBUFFER, 0);
            gl::read_buffer(b);
        }
        if self.fbo != 0 {
            gl::bind_framebuffer(gl::READ_FRAMEBUFFER, 0);
            gl::delete_framebuffer(self.fbo);
        }
    }
}

/// The renderbuffer format of a copy of an image of `format`, and whether
/// its alpha must read 1 as the image's does (an sRGB image without alpha:
/// `GL_SRGB8` is not colour-renderable everywhere, its copy has an alpha
/// channel blending may write).
pub(crate) fn copy_of(format: u32) -> (u32, bool) {
    match format {
        gl::SRGB8 => (gl::SRGB8_ALPHA8, true),
        f => (f, false),
    }
}

/// The sized format of a colour attachment with `sizes` (R, G, B, A bits),
/// component type `ty` and sRGB encoding; `None` where gldbg has no copy.
fn copy_format(sizes: [i32; 4], ty: u32, srgb: bool) -> Option<u32> {
    Some(match (sizes, ty, srgb) {
        ([8, 8, 8, 8], gl::UNSIGNED_NORMALIZED, true) => gl::SRGB8_ALPHA8,
        ([8, 8, 8, 0], gl::UNSIGNED_NORMALIZED, true) => gl::SRGB8,
        (_, _, true) => return None,
        ([8, 8, 8, 8], gl::UNSIGNED_NORMALIZED, _) => gl::RGBA8,
        ([8, 8, 8, 0], gl::UNSIGNED_NORMALIZED, _) => gl::RGB8,
        ([8, 8, 0, 0], gl::UNSIGNED_NORMALIZED, _) => gl::RG8,
        ([8, 0, 0, 0], gl::UNSIGNED_NORMALIZED, _) => gl::R8,
        ([10, 10, 10, 2], gl::UNSIGNED_NORMALIZED, _) => gl::RGB10_A2,
        ([5, 6, 5, 0], gl::UNSIGNED_NORMALIZED, _) => gl::RGB565,
        ([16, 16, 16, 16], gl::UNSIGNED_NORMALIZED, _) => gl::RGBA16,
        ([16, 16, 16, 16], gl::FLOAT, _) => gl::RGBA16F,
        ([32, 32, 32, 32], gl::FLOAT, _) => gl::RGBA32F,
        ([16, 0, 0, 0], gl::FLOAT, _) => gl::R16F,
        ([16, 16, 0, 0], gl::FLOAT, _) => gl::RG16F,
        ([32, 0, 0, 0], gl::FLOAT, _) => gl::R32F,
        ([32, 32, 0, 0], gl::FLOAT, _) => gl::RG32F,
        ([11, 11, 10, 0], gl::FLOAT, _) => gl::R11F_G11F_B10F,
        ([8, 8, 8, 8], gl::INT, _) => gl::RGBA8I,
        ([8, 8, 8, 8], gl::UNSIGNED_INT, _) => gl::RGBA8UI,
        ([16, 16, 16, 16], gl::INT, _) => gl::RGBA16I,
        ([16, 16, 16, 16], gl::UNSIGNED_INT, _) => gl::RGBA16UI,
        ([32, 32, 32, 32], gl::INT, _) => gl::RGBA32I,
        ([32, 32, 32, 32], gl::UNSIGNED_INT, _) => gl::RGBA32UI,
        _ => return None,
    })
}

/// The read framebuffer's colour at (`x`, `y`) as bits of `kind` (`PIXEL_*`).
pub(crate) fn read_color(x: i32, y: i32, kind: u32) -> [u32; 4] {
    match kind {
        shm::PIXEL_INT => gl::read_pixel_as(x, y, gl::RGBA_INTEGER, gl::INT),
        shm::PIXEL_UINT => gl::read_pixel_as(x, y, gl::RGBA_INTEGER, gl::UNSIGNED_INT),
        _ => gl::read_pixel_as(x, y, gl::RGBA, gl::FLOAT),
    }
}

/// The read framebuffer's depth and stencil at (`x`, `y`), where `ds`
/// (its depth/stencil layout, `target::depth_stencil_format`) has them
/// and the context can read them (GL ES cannot).
pub(crate) fn read_depth_stencil(x: i32, y: i32, ds: Option<(u32, u32)>, value: &mut PixelValue) {
    let Some((_, att)) = ds else {
        return;
    };
    if is_es() {
        return;
    }
    if att != gl::STENCIL_ATTACHMENT {
        value.depth = f32::from_bits(gl::read_pixel_as(x, y, gl::DEPTH_COMPONENT, gl::FLOAT)[0]);
        value.has_depth = 1;
    }
    if att != gl::DEPTH_ATTACHMENT {
        value.stencil = gl::read_pixel_as(x, y, gl::STENCIL_INDEX, gl::UNSIGNED_INT)[0];
        value.has_stencil = 1;
    }
}

/// The draw buffer of the bound draw framebuffer `draw_fb` that writes the
/// image of `t`, if one does.
pub(crate) fn draw_buffer_of(t: &TexelRef, draw_fb: u32) -> Option<u32> {
    let max = gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32;
    let found = (0..max).find(|&i| {
        let buffer = gl::get_i(gl::DRAW_BUFFER0 + i) as u32;
        match (draw_fb, t.kind) {
            (0, shm::TEXEL_WINDOW) => buffer != gl::NONE,
            (0, _) | (_, shm::TEXEL_WINDOW) => false,
            _ if !(gl::COLOR_ATTACHMENT0..gl::COLOR_ATTACHMENT0 + 32).contains(&buffer) => false,
            _ => attached_is(t, buffer),
        }
    });
    drain_own_errors();
    found
}

/// Whether attachment `att` of the draw framebuffer is the image of `t`.
fn attached_is(t: &TexelRef, att: u32) -> bool {
    let q = |pname| gl::fb_attachment_param(gl::DRAW_FRAMEBUFFER, att, pname);
    let ty = q(gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32;
    let name = q(gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME) as u32;
    match t.kind {
        shm::TEXEL_RENDERBUFFER => ty == gl::RENDERBUFFER && name == t.name,
        _ => {
            ty == gl::TEXTURE
                && name == t.name
                && q(gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL) == t.level
                // A layered attachment writes whichever layer gl_Layer
                // picks: not followed (the record would mix layers).
                && q(gl::FRAMEBUFFER_ATTACHMENT_LAYERED) == 0
                && attached_layer(att, t.name) == Some(t.layer)
        }
    }
}

/// The image draw buffer 0 of the bound draw framebuffer `draw_fb` writes,
/// at the texel of `t`.
fn current_image(t: &TexelRef, draw_fb: u32) -> Result<TexelRef, Error> {
    let mut image = TexelRef {
        kind: shm::TEXEL_WINDOW,
        layer: -1,
        ..*t
    };
    if draw_fb == 0 {
        return Ok(image);
    }
    let buffer = gl::get_i(gl::DRAW_BUFFER0) as u32;
    if !(gl::COLOR_ATTACHMENT0..gl::COLOR_ATTACHMENT0 + 32).contains(&buffer) {
        return Err(Error::Unsupported(format!(
            "framebuffer {draw_fb} draws no colour to draw buffer 0"
        )));
    }
    let q = |pname| gl::fb_attachment_param(gl::DRAW_FRAMEBUFFER, buffer, pname);
    image.name = q(gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME) as u32;
    match q(gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32 {
        gl::RENDERBUFFER => image.kind = shm::TEXEL_RENDERBUFFER,
        gl::TEXTURE => {
            image.kind = shm::TEXEL_TEXTURE;
            image.level = q(gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL);
            if q(gl::FRAMEBUFFER_ATTACHMENT_LAYERED) != 0 {
                return Err(Error::Unsupported(format!(
                    "framebuffer {draw_fb} draws to every layer of texture {} (gl_Layer picks \
                     one per primitive): follow one with `history texture {} X,Y layer K`",
                    image.name, image.name
                )));
            }
            image.layer = attached_layer(buffer, image.name).ok_or_else(|| {
                Error::Unsupported(format!(
                    "gldbg cannot tell which layer of texture {} framebuffer {draw_fb} draws to",
                    image.name
                ))
            })?;
        }
        _ => {
            return Err(Error::Unsupported(format!(
                "framebuffer {draw_fb} has nothing attached at its draw buffer 0"
            )));
        }
    }
    drain_own_errors();
    Ok(image)
}

/// Whether texture `name` has layers (an array, 3D or cube map texture);
/// `None` where the context cannot say.
fn texture_is_layered(name: u32) -> Option<bool> {
    if !crate::intercept::resolve::available(gldbg_proto::api::ids::glGetTextureParameteriv) {
        return None;
    }
    let target = gl::texture_param_i(name, gl::TEXTURE_TARGET) as u32;
    drain_own_errors();
    match target {
        gl::TEXTURE_2D | gl::TEXTURE_RECTANGLE | gl::TEXTURE_2D_MULTISAMPLE | gl::TEXTURE_1D => {
            Some(false)
        }
        gl::TEXTURE_3D
        | gl::TEXTURE_1D_ARRAY
        | gl::TEXTURE_2D_ARRAY
        | gl::TEXTURE_CUBE_MAP
        | gl::TEXTURE_CUBE_MAP_ARRAY
        | gl::TEXTURE_2D_MULTISAMPLE_ARRAY => Some(true),
        _ => None,
    }
}

/// The layer of texture `name` attached at `att` of the draw framebuffer,
/// as `glFramebufferTextureLayer` names it (a cube map's face counts as
/// its layer); -1 for a texture without layers; `None` where unknown.
fn attached_layer(att: u32, name: u32) -> Option<i32> {
    let q = |pname| gl::fb_attachment_param(gl::DRAW_FRAMEBUFFER, att, pname);
    let face = q(gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE) as u32;
    let layer = q(gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_LAYER);
    drain_own_errors();
    if (gl::TEXTURE_CUBE_MAP_POSITIVE_X..gl::TEXTURE_CUBE_MAP_POSITIVE_X + 6).contains(&face) {
        return Some((face - gl::TEXTURE_CUBE_MAP_POSITIVE_X) as i32);
    }
    match texture_is_layered(name)? {
        true => Some(layer),
        false => Some(-1),
    }
}

/// The buffer the app draws to in the window (its draw buffer 0 there;
/// the back buffer where it has none).
fn window_draw_buffer() -> u32 {
    gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, 0);
    let b = gl::get_i(gl::DRAW_BUFFER0) as u32;
    drain_own_errors();
    match b {
        gl::NONE => gl::BACK,
        b => b,
    }
}

/// The size of the texture level or renderbuffer of `t` (0x0 where the
/// context cannot say: no texture level queries by name).
fn attachment_size(t: &TexelRef) -> (i32, i32) {
    if t.kind == shm::TEXEL_RENDERBUFFER {
        gl::bind_renderbuffer(t.name);
        return (
            gl::get_renderbuffer_param(gl::RENDERBUFFER_WIDTH),
            gl::get_renderbuffer_param(gl::RENDERBUFFER_HEIGHT),
        );
    }
    if !crate::intercept::resolve::available(gldbg_proto::api::ids::glGetTextureLevelParameteriv) {
        return (0, 0);
    }
    (
        gl::texture_level_param(t.name, t.level, gl::TEXTURE_WIDTH),
        gl::texture_level_param(t.name, t.level, gl::TEXTURE_HEIGHT),
    )
}

#[cfg(test)]
mod tests {
    use super::copy_format;
    use crate::gl;

    #[test]
    fn copies_keep_the_format_or_are_refused() {
        let unorm = gl::UNSIGNED_NORMALIZED;
        assert_eq!(copy_format([8, 8, 8, 8], unorm, false), Some(gl::RGBA8));
        assert_eq!(
            copy_format([8, 8, 8, 8], unorm, true),
            Some(gl::SRGB8_ALPHA8)
        );
        assert_eq!(copy_format([8, 8, 8, 0], unorm, false), Some(gl::RGB8));
        assert_eq!(copy_format([4, 4, 4, 4], unorm, false), None);
        assert_eq!(copy_format([8, 8, 8, 0], unorm, true), Some(gl::SRGB8));
        assert_eq!(super::copy_of(gl::SRGB8), (gl::SRGB8_ALPHA8, true));
        assert_eq!(copy_format([8, 8, 8, 8], unorm, true).is_some(), true);
    }
}
