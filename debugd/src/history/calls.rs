//! Which calls a pixel history stops at, and whether a call that is not a
//! draw wrote the texel: a clear or blit when its destination holds the
//! pixel (whatever it wrote), any other writer (copies into textures,
//! uploads, mipmap generation, compute dispatches, invalidations) when the
//! value changed.

use std::sync::OnceLock;

use gldbg_proto::api::{FUNCTIONS, class};

/// How a call that is not a draw is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `glClear`: the colour bit, the image at a draw buffer, the pixel
    /// inside the scissor.
    Clear,
    /// `glClearBuffer*(GL_COLOR, i, ...)`: draw buffer `i` writes the image.
    ClearBuffer,
    /// `glBlitFramebuffer`: the colour bit, the image at a draw buffer, the
    /// pixel inside the destination rectangle.
    Blit,
    /// Anything else that can write an image: listed where the value changed.
    Other,
}

/// Calls that may write a texel outside a draw (base names: the vendor
/// suffixes `EXT`, `ARB`, `OES`, `NV`, `ANGLE`, `APPLE` count too).
const OTHER_WRITERS: &[&str] = &[
    "glClearNamedFramebufferfv",
    "glClearNamedFramebufferiv",
    "glClearNamedFramebufferuiv",
    "glClearNamedFramebufferfi",
    "glBlitNamedFramebuffer",
    "glCopyTexImage1D",
    "glCopyTexImage2D",
    "glCopyTexSubImage1D",
    "glCopyTexSubImage2D",
    "glCopyTexSubImage3D",
    "glCopyTextureSubImage1D",
    "glCopyTextureSubImage2D",
    "glCopyTextureSubImage3D",
    "glCopyImageSubData",
    "glTexImage1D",
    "glTexImage2D",
    "glTexImage3D",
    "glTexSubImage1D",
    "glTexSubImage2D",
    "glTexSubImage3D",
    "glTextureSubImage1D",
    "glTextureSubImage2D",
    "glTextureSubImage3D",
    "glCompressedTexImage2D",
    "glCompressedTexImage3D",
    "glCompressedTexSubImage2D",
    "glCompressedTexSubImage3D",
    "glCompressedTextureSubImage2D",
    "glCompressedTextureSubImage3D",
    "glTexStorage2D",
    "glTexStorage3D",
    "glTextureStorage2D",
    "glTextureStorage3D",
    "glEGLImageTargetTexture2D",
    "glXBindTexImage",
    "glGenerateMipmap",
    "glGenerateTextureMipmap",
    "glClearTexImage",
    "glClearTexSubImage",
    "glDrawPixels",
    "glCopyPixels",
    "glBitmap",
    "glAccum",
    "glInvalidateFramebuffer",
    "glInvalidateSubFramebuffer",
    "glInvalidateNamedFramebufferData",
    "glInvalidateNamedFramebufferSubData",
    "glInvalidateTexImage",
    "glInvalidateTexSubImage",
    "glDiscardFramebuffer",
];

const SUFFIXES: &[&str] = &["EXT", "ARB", "OES", "NV", "ANGLE", "APPLE", "KHR"];

/// How the call with function id `id` writes texels outside a draw (None:
/// it does not).
pub fn writer(id: u32) -> Option<Writer> {
    table().get(id as usize).copied().flatten()
}

fn table() -> &'static [Option<Writer>] {
    static TABLE: OnceLock<Vec<Option<Writer>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        FUNCTIONS
            .iter()
            .map(|f| {
                let base = SUFFIXES
                    .iter()
                    .find_map(|s| f.name.strip_suffix(s))
                    .unwrap_or(f.name);
                let dispatch = gldbg_proto::api::classify(f.name) & class::DISPATCH != 0;
                match base {
                    "glClear" => Some(Writer::Clear),
                    "glClearBufferfv" | "glClearBufferiv" | "glClearBufferuiv" => {
                        Some(Writer::ClearBuffer)
                    }
                    "glBlitFramebuffer" => Some(Writer::Blit),
                    _ if dispatch || OTHER_WRITERS.contains(&base) => Some(Writer::Other),
                    _ => None,
                }
            })
            .collect()
    })
}

/// What `CMD_PIXEL_READ` said of the draw framebuffer before the call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Destination {
    /// The draw buffer writing the image (None: none).
    pub draw_buffer: Option<u32>,
    pub scissor: Option<[i32; 4]>,
}

/// Whether a clear or blit call with `args` writes pixel (`x`, `y`) of
/// the image the destination holds; `Other` writers are judged by value.
pub fn writes_pixel(w: Writer, args: &[u64], d: &Destination, (x, y): (i32, i32)) -> bool {
    let Some(db) = d.draw_buffer else {
        return false;
    };
    let arg = |i: usize| args.get(i).copied().unwrap_or(0);
    let inside = |r: [i32; 4]| x >= r[0] && y >= r[1] && x < r[0] + r[2] && y < r[1] + r[3];
    let scissored = d.scissor.is_some_and(|s| !inside(s));
    const COLOR: u64 = 0x4000;
    const GL_COLOR: u64 = 0x1800;
    match w {
        Writer::Clear => arg(0) & COLOR != 0 && !scissored,
        Writer::ClearBuffer => {
            arg(0) as u32 as u64 == GL_COLOR && arg(1) as u32 == db && !scissored
        }
        Writer::Blit => {
            let c = |i: usize| arg(i) as u32 as i32;
            let (x0, x1) = (c(4).min(c(6)), c(4).max(c(6)));
            let (y0, y1) = (c(5).min(c(7)), c(5).max(c(7)));
            arg(8) & COLOR != 0 && !scissored && (x0..x1).contains(&x) && (y0..y1).contains(&y)
        }
        Writer::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gldbg_proto::api::function_id;

    fn id(name: &str) -> u32 {
        function_id(name).expect(name)
    }

    #[test]
    fn writers_are_classified_with_their_vendor_names() {
        assert_eq!(writer(id("glClear")), Some(Writer::Clear));
        assert_eq!(writer(id("glBlitFramebufferEXT")), Some(Writer::Blit));
        assert_eq!(writer(id("glGenerateMipmapEXT")), Some(Writer::Other));
        assert_eq!(writer(id("glDispatchCompute")), Some(Writer::Other));
        assert_eq!(
            writer(id("glEGLImageTargetTexture2DOES")),
            Some(Writer::Other)
        );
        assert_eq!(writer(id("glDiscardFramebufferEXT")), Some(Writer::Other));
        assert_eq!(writer(id("glTexStorage2D")), Some(Writer::Other));
        assert_eq!(writer(id("glUniform1f")), None);
        assert_eq!(writer(id("glDrawArrays")), None);
    }

    #[test]
    fn clears_and_blits_write_where_their_rectangles_say() {
        let d = Destination {
            draw_buffer: Some(0),
            scissor: Some([10, 10, 5, 5]),
        };
        assert!(writes_pixel(Writer::Clear, &[0x4100], &d, (12, 12)));
        assert!(
            !writes_pixel(Writer::Clear, &[0x4100], &d, (9, 12)),
            "scissored"
        );
        assert!(
            !writes_pixel(Writer::Clear, &[0x0100], &d, (12, 12)),
            "depth only"
        );
        let none = Destination::default();
        assert!(!writes_pixel(Writer::Clear, &[0x4000], &none, (12, 12)));
        // glBlitFramebuffer(0,0,8,8, 20,0,12,8, COLOR, NEAREST): a mirrored
        // destination covers x 12..20.
        let blit = [0, 0, 8, 8, 20, 0, 12, 8, 0x4000];
        let open = Destination {
            draw_buffer: Some(0),
            scissor: None,
        };
        assert!(writes_pixel(Writer::Blit, &blit, &open, (12, 3)));
        assert!(!writes_pixel(Writer::Blit, &blit, &open, (20, 3)));
        assert!(writes_pixel(
            Writer::ClearBuffer,
            &[0x1800, 0],
            &open,
            (1, 1)
        ));
        assert!(!writes_pixel(
            Writer::ClearBuffer,
            &[0x1801, 0],
            &open,
            (1, 1)
        ));
    }
}
