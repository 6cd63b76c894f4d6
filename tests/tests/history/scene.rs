//! tests/apps/egl_history.c's frame as data: its `SCENE` table, mirrored
//! op for op (the CPU model of `model.rs` runs it). `the_model_matches_the_driver`
//! checks the two agree at every pixel and texel of the frame.

/// The window (the pbuffer, framebuffer 0) is SIZE x SIZE.
pub const SIZE: u32 = 64;
/// The render-to-texture target (a GL_RGBA8 texture) is RTT_SIZE x RTT_SIZE.
pub const RTT_SIZE: u32 = 32;
/// A blit copies a BLIT_SIZE square.
pub const BLIT_SIZE: u32 = 16;
/// The composite's lower-left window pixel.
pub const COMPOSITE: [u32; 2] = [0, 32];

/// The image an op writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Framebuffer 0: RGBA8, depth 24, stencil 8.
    Window,
    /// The texture of the app's framebuffer object: RGBA8, depth 24, no stencil.
    Rtt,
}

/// What the fragment shader does (`u_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Outputs the rectangle's colour.
    Plain,
    /// Discards fragments of even x.
    Discard,
    /// Outputs the texture's texel (x, y) - COMPOSITE.
    Composite,
}

/// The stencil test of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stencil {
    Off,
    /// ALWAYS, ref 1, REPLACE on pass.
    Write1,
    /// EQUAL 1, KEEP.
    Equal1,
}

/// The blending of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blend {
    Off,
    /// GL_FUNC_ADD, GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA (colour and alpha).
    Alpha,
    /// GL_FUNC_ADD, GL_ONE, GL_ONE.
    Add,
    /// GL_MIN.
    Min,
}

/// A rectangle [x0, x1) x [y0, y1) of pixels, at NDC depth `z`, of colour
/// `rgba` / 255. Primitives 2i (below the diagonal from (x0, y0) to
/// (x1, y1)) and 2i + 1 of its draw, for rectangle i.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    pub z: f32,
    pub rgba: [u8; 4],
}

const fn rect(x0: u32, y0: u32, x1: u32, y1: u32, z: f32, rgba: [u8; 4]) -> Rect {
    Rect {
        x0,
        y0,
        x1,
        y1,
        z,
        rgba,
    }
}

/// A scissor box x, y, w, h.
pub type Scissor = Option<[u32; 4]>;

/// A glDrawArrays(GL_TRIANGLES) of `rects` and the state it runs with.
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    pub target: Target,
    pub rects: &'static [Rect],
    pub mode: Mode,
    /// GL_DEPTH_TEST with GL_LESS (depth writes on); else no depth test.
    pub depth_less: bool,
    pub stencil: Stencil,
    pub blend: Blend,
    pub scissor: Scissor,
}

/// A draw into the window with every test off (the base of SCENE's draws).
const WINDOW_DRAW: Draw = Draw {
    target: Target::Window,
    rects: &[],
    mode: Mode::Plain,
    depth_less: false,
    stencil: Stencil::Off,
    blend: Blend::Off,
    scissor: None,
};

/// One op of the frame (one GL call that writes pixels).
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// glClear of colour (and of depth to 1 and stencil to 0 when
    /// `depth_stencil`), inside the scissor box if any.
    Clear {
        target: Target,
        color: [f32; 4],
        depth_stencil: bool,
        scissor: Scissor,
    },
    /// glClearBufferfv(GL_COLOR, 0, color), inside the scissor box.
    ClearBuffer {
        target: Target,
        color: [f32; 4],
        scissor: Scissor,
    },
    Draw(Draw),
    /// glBlitFramebuffer of texture texels `src` + [0, BLIT_SIZE)^2 to
    /// window pixels `dst` + [0, BLIT_SIZE)^2 (colour, NEAREST).
    Blit {
        src: [u32; 2],
        dst: [u32; 2],
    },
}

impl Op {
    /// The GL function of the op.
    pub fn function(&self) -> &'static str {
        match self {
            Op::Clear { .. } => "glClear",
            Op::ClearBuffer { .. } => "glClearBufferfv",
            Op::Draw(_) => "glDrawArrays",
            Op::Blit { .. } => "glBlitFramebuffer",
        }
    }

    /// The image the op writes.
    pub fn target(&self) -> Target {
        match self {
            Op::Clear { target, .. } | Op::ClearBuffer { target, .. } => *target,
            Op::Draw(d) => d.target,
            Op::Blit { .. } => Target::Window,
        }
    }
}

/// egl_history.c's SCENE, in the same order (draw numbers in comments).
pub const SCENE: &[Op] = &[
    Op::Clear {
        target: Target::Window,
        color: [0.2, 0.4, 0.6, 1.0],
        depth_stencil: true,
        scissor: None,
    },
    Op::Clear {
        target: Target::Rtt,
        color: [0.0, 0.0, 0.2, 1.0],
        depth_stencil: true,
        scissor: None,
    },
    Op::ClearBuffer {
        target: Target::Rtt,
        color: [0.0, 1.0, 1.0, 1.0],
        scissor: Some([0, 0, 8, 8]),
    },
    // draw 1: R1
    Op::Draw(Draw {
        target: Target::Rtt,
        rects: &[rect(4, 4, 20, 20, 0.0, [200, 40, 0, 255])],
        depth_less: true,
        ..WINDOW_DRAW
    }),
    // draw 2: R2, behind R1
    Op::Draw(Draw {
        target: Target::Rtt,
        rects: &[rect(12, 12, 28, 28, 0.5, [0, 180, 60, 255])],
        depth_less: true,
        ..WINDOW_DRAW
    }),
    // draw 3: the composite
    Op::Draw(Draw {
        rects: &[rect(
            COMPOSITE[0],
            COMPOSITE[1],
            COMPOSITE[0] + RTT_SIZE,
            COMPOSITE[1] + RTT_SIZE,
            0.0,
            [0, 0, 0, 0],
        )],
        mode: Mode::Composite,
        ..WINDOW_DRAW
    }),
    // draw 4: D1
    Op::Draw(Draw {
        rects: &[rect(34, 34, 50, 50, -0.5, [250, 10, 10, 255])],
        depth_less: true,
        ..WINDOW_DRAW
    }),
    // draw 5: D2, behind D1
    Op::Draw(Draw {
        rects: &[rect(42, 42, 58, 58, 0.0, [10, 250, 10, 255])],
        depth_less: true,
        ..WINDOW_DRAW
    }),
    // draw 6: A then B (behind A) in one call
    Op::Draw(Draw {
        rects: &[
            rect(18, 18, 30, 30, -0.6, [240, 240, 20, 255]),
            rect(24, 20, 32, 28, 0.4, [20, 240, 240, 255]),
        ],
        depth_less: true,
        ..WINDOW_DRAW
    }),
    // draw 7: S1 writes stencil 1
    Op::Draw(Draw {
        rects: &[rect(2, 2, 10, 10, 0.0, [128, 0, 128, 255])],
        stencil: Stencil::Write1,
        ..WINDOW_DRAW
    }),
    // draw 8: S2, stencil EQUAL 1
    Op::Draw(Draw {
        rects: &[rect(6, 6, 16, 16, 0.0, [255, 128, 0, 255])],
        stencil: Stencil::Equal1,
        ..WINDOW_DRAW
    }),
    // draw 9: scissored
    Op::Draw(Draw {
        rects: &[rect(18, 2, 30, 14, 0.0, [60, 60, 220, 255])],
        scissor: Some([20, 4, 6, 6]),
        ..WINDOW_DRAW
    }),
    // draw 10: discards even x
    Op::Draw(Draw {
        rects: &[rect(2, 18, 16, 30, 0.0, [230, 230, 230, 255])],
        mode: Mode::Discard,
        ..WINDOW_DRAW
    }),
    // draw 11: alpha blending
    Op::Draw(Draw {
        rects: &[rect(34, 2, 42, 14, 0.0, [255, 0, 0, 102])],
        blend: Blend::Alpha,
        ..WINDOW_DRAW
    }),
    // draw 12: additive
    Op::Draw(Draw {
        rects: &[rect(44, 2, 52, 14, 0.0, [100, 200, 20, 0])],
        blend: Blend::Add,
        ..WINDOW_DRAW
    }),
    // draw 13: GL_MIN
    Op::Draw(Draw {
        rects: &[rect(54, 2, 62, 14, 0.0, [20, 200, 100, 128])],
        blend: Blend::Min,
        ..WINDOW_DRAW
    }),
    Op::Blit {
        src: [0, 0],
        dst: [44, 16],
    },
    Op::Clear {
        target: Target::Window,
        color: [1.0, 1.0, 0.0, 1.0],
        depth_stencil: false,
        scissor: Some([56, 56, 8, 8]),
    },
];
