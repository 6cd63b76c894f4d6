//! The wrapped API: function ids, parameter ABI classes, enum names and the
//! classification of calls. `FUNCTIONS`, `GL_ENUMS` and `GL_ENUM_GROUPS` are
//! generated from the Khronos registry; [`classify`] is the one hand-written
//! table.

/// Which window-system API a function belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Gl,
    Glx,
    Egl,
}

/// How a value travels in registers (System V x86-64 / AArch64): all a
/// wrapper needs to forward it unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    Void,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Ptr,
}

impl Abi {
    /// Rust spelling of the class, for generated code.
    pub fn rust_type(self) -> &'static str {
        match self {
            Abi::Void => "()",
            Abi::I8 => "i8",
            Abi::U8 => "u8",
            Abi::I16 => "i16",
            Abi::U16 => "u16",
            Abi::I32 => "i32",
            Abi::U32 => "u32",
            Abi::I64 => "i64",
            Abi::U64 => "u64",
            Abi::F32 => "f32",
            Abi::F64 => "f64",
            Abi::Ptr => "*mut ::core::ffi::c_void",
        }
    }

    /// Decode a raw argument word (as stored in a call slot) for display.
    /// Integers are stored zero/sign-extended to 64 bits, floats as their
    /// IEEE bits (f32 in the low 32 bits), pointers as addresses.
    pub fn format_word(self, word: u64) -> String {
        match self {
            Abi::Void => String::new(),
            Abi::I8 => (word as i8).to_string(),
            Abi::U8 => (word as u8).to_string(),
            Abi::I16 => (word as i16).to_string(),
            Abi::U16 => (word as u16).to_string(),
            Abi::I32 => (word as i32).to_string(),
            Abi::U32 => (word as u32).to_string(),
            Abi::I64 => (word as i64).to_string(),
            Abi::U64 => word.to_string(),
            Abi::F32 => float_text(f32::from_bits(word as u32) as f64, true),
            Abi::F64 => float_text(f64::from_bits(word), false),
            Abi::Ptr => format!("{word:#x}"),
        }
    }
}

/// A float for people: the shortest decimal that reads back as the same f32
/// (`single`) or f64, positional (`0.25`, `1024`) when its decimal exponent
/// is in -4..9 (f32) / -4..17 (f64), else with an exponent (`-2.2318231e-35`,
/// `1e20`), as gdb's `%g` with the type's digits; `NaN`, `inf`, `-inf`.
pub fn float_text(v: f64, single: bool) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let (exp_form, digits) = if single {
        (format!("{:e}", v as f32), 9)
    } else {
        (format!("{v:e}"), 17)
    };
    let exponent: i32 = exp_form
        .rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    if v == 0.0 || (-4..digits).contains(&exponent) {
        if single {
            format!("{}", v as f32)
        } else {
            format!("{v}")
        }
    } else {
        exp_form
    }
}

/// One parameter of a wrapped function.
#[derive(Debug)]
pub struct Param {
    /// Parameter name from the registry (Rust keywords get a trailing `_`).
    pub name: &'static str,
    pub abi: Abi,
    /// C-like spelling of the declared type, for display.
    pub c_type: &'static str,
    /// Registry enum group (e.g. `PrimitiveType`), empty if none.
    pub group: &'static str,
    /// The registry's `len` attribute of a pointer parameter: how many
    /// elements it points at, as an expression of the other parameters
    /// (`count`, `count*4`, `COMPSIZE(pname)`, `1`), empty if none.
    pub len: &'static str,
}

/// One wrapped function. Its index in [`FUNCTIONS`] is its function id.
#[derive(Debug)]
pub struct Function {
    pub name: &'static str,
    pub api: Api,
    pub ret: Abi,
    pub ret_type: &'static str,
    pub params: &'static [Param],
}

/// What a draw or compute dispatch call's parameters say about its shape,
/// as parameter indices: found once, when the table is generated
/// ([`CALL_SHAPES`], by function id), instead of from names at run time.
/// Other functions have only `mode` (where their first parameter is one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallShape {
    /// `mode`, the primitive type, when it is the first parameter (any
    /// function).
    pub mode: Option<u8>,
    /// `first` (a pointer in a multi-draw: one per draw).
    pub first: Option<u8>,
    /// `count` (a pointer in a multi-draw: one per draw).
    pub count: Option<u8>,
    /// `instancecount` or `primcount` (a pointer: per draw, unknown here).
    pub instances: Option<u8>,
    /// `drawcount` of a multi-draw.
    pub draw_count: Option<u8>,
    /// `group_size_x` (then y, z) of `glDispatchComputeGroupSizeARB`.
    pub group_size: Option<u8>,
    /// Indices from an element array buffer (`glDraw*Elements*`).
    pub indexed: bool,
    /// Arguments in a buffer (`glDraw*Indirect`, `glDispatchComputeIndirect`).
    pub indirect: bool,
    /// A draw of one `first` (or `start`), `count` range, its vertices in
    /// order, every parameter known and none a pointer.
    pub direct_arrays: bool,
}

impl CallShape {
    /// A draw of one `first`, `count` range, its vertices in order
    /// (`glDrawArrays[Instanced[BaseInstance]]`, `glDrawArraysInstancedEXT`):
    /// not a multi-draw, not an indexed or indirect one, no other parameter.
    pub fn is_direct_array_draw(&self) -> bool {
        self.direct_arrays
    }

    /// Whether the function `name` is such a draw (see
    /// [`is_direct_array_draw`](Self::is_direct_array_draw)); false for an
    /// unknown name.
    pub fn direct_array_draw(name: &str) -> bool {
        function_id(name).is_some_and(|id| CALL_SHAPES[id as usize].is_direct_array_draw())
    }
}

include!(concat!(env!("OUT_DIR"), "/functions.rs"));
include!(concat!(env!("OUT_DIR"), "/enums.rs"));

/// Most arguments any wrapped function takes (the shared-memory slot holds this many).
pub const MAX_ARGS: usize = 20;

/// Function id of `name`, by binary search (the table is sorted by name).
pub fn function_id(name: &str) -> Option<u32> {
    FUNCTIONS
        .binary_search_by(|f| f.name.cmp(name))
        .ok()
        .map(|i| i as u32)
}

/// The best GL name of an enum value, preferring the parameter's registry group.
pub fn gl_enum_name(value: u32, group: &str) -> Option<&'static str> {
    if !group.is_empty()
        && let Ok(g) = GL_ENUM_GROUPS.binary_search_by(|(n, _)| (*n).cmp(group))
    {
        let entries = GL_ENUM_GROUPS[g].1;
        if let Ok(i) = entries.binary_search_by_key(&value, |(v, _)| *v) {
            return Some(entries[i].1);
        }
    }
    GL_ENUMS
        .binary_search_by_key(&value, |(v, _)| *v)
        .ok()
        .map(|i| GL_ENUMS[i].1)
}

/// Value of a GL enum by name (linear: for commands typed by a user).
pub fn gl_enum_value(name: &str) -> Option<u32> {
    GL_ENUMS
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(v, _)| *v)
        .or_else(|| {
            GL_ENUM_GROUPS
                .iter()
                .flat_map(|(_, e)| e.iter())
                .find(|(_, n)| *n == name)
                .map(|(v, _)| *v)
        })
}

include!("classify.rs");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_shapes_come_from_the_parameters() {
        let shape = |name: &str| CALL_SHAPES[function_id(name).unwrap() as usize];
        let arrays = shape("glDrawArraysInstancedBaseInstance");
        assert_eq!(
            (arrays.mode, arrays.first, arrays.count, arrays.instances),
            (Some(0), Some(1), Some(2), Some(3))
        );
        assert!(arrays.is_direct_array_draw());
        let multi = shape("glMultiDrawArrays");
        assert_eq!((multi.count, multi.draw_count), (Some(2), Some(3)));
        assert!(!multi.is_direct_array_draw());
        let elements = shape("glDrawElementsInstanced");
        assert!(elements.indexed && !elements.is_direct_array_draw());
        assert_eq!(elements.instances, Some(4));
        assert!(shape("glDrawArraysIndirect").indirect);
        assert!(shape("glDispatchComputeIndirect").indirect);
        assert_eq!(shape("glDispatchComputeGroupSizeARB").group_size, Some(3));
        assert_eq!(shape("glDrawElementsInstancedEXT").instances, Some(4));
        assert_eq!(shape("glDrawBuffers"), CallShape::default());
        assert_eq!(shape("glDrawTransformFeedback").mode, Some(0));
        assert_eq!(shape("glDrawTransformFeedback").count, None);
        assert_eq!(shape("glUniform4fv"), CallShape::default());
        assert_eq!(shape("glEnd"), CallShape::default());
        // `first` is `start` here; the draw is one range.
        let ext = shape("glDrawArraysInstancedEXT");
        assert_eq!(
            (ext.first, ext.count, ext.instances),
            (Some(1), Some(2), Some(3))
        );
        assert!(ext.is_direct_array_draw());
        assert!(CallShape::direct_array_draw("glDrawArraysInstancedEXT"));
        assert!(CallShape::direct_array_draw("glDrawArrays"));
        assert!(!CallShape::direct_array_draw("glDrawArraysIndirect"));
        assert!(!CallShape::direct_array_draw("glNoSuchCall"));
        // A pointer multi-draw: `primcount` is the number of draws.
        let multi_ext = shape("glMultiDrawArraysEXT");
        assert_eq!(
            (
                multi_ext.first,
                multi_ext.count,
                multi_ext.instances,
                multi_ext.draw_count
            ),
            (Some(1), Some(2), None, Some(3))
        );
        assert!(!multi_ext.is_direct_array_draw());
        assert_eq!(shape("glMultiDrawElementsEXT").draw_count, Some(4));
        // Not one range of vertices: a mesh with a width.
        assert!(!shape("glDrawMeshArraysSUN").is_direct_array_draw());
        // An indexed draw's `start` is its lowest index, not a first.
        assert_eq!(shape("glDrawRangeElements").first, None);
        // Every DRAW-class call of primitives counts its vertices, not only
        // those named *Arrays* or *Elements*.
        let apple = shape("glDrawElementArrayAPPLE");
        assert_eq!(
            (apple.first, apple.count, apple.indexed),
            (Some(1), Some(2), true)
        );
        assert!(!apple.is_direct_array_draw());
        assert_eq!(shape("glDrawElementArrayATI").count, Some(1));
        assert_eq!(shape("glDrawRangeElementArrayAPPLE").count, Some(4));
        assert_eq!(shape("glDrawRangeElementArrayATI").count, Some(3));
        assert!(shape("glDrawRangeElementArrayATI").indexed);
        // Task groups and meshes are no vertex counts.
        assert_eq!(shape("glDrawMeshTasksNV").count, None);
        assert_eq!(shape("glDrawMeshArraysSUN").count, None);
    }

    #[test]
    fn floats_format_shortest_with_an_exponent_where_long() {
        assert_eq!(Abi::F32.format_word(u64::from(0.5f32.to_bits())), "0.5");
        assert_eq!(
            Abi::F32.format_word(u64::from((-2.2318231e-35f32).to_bits())),
            "-2.2318231e-35"
        );
        assert_eq!(Abi::F64.format_word(1e-300f64.to_bits()), "1e-300");
        assert_eq!(float_text(1e9, true), "1e9");
        assert_eq!(float_text(123456790.0, true), "123456790");
    }

    #[test]
    fn immediate_mode_calls_are_those_allowed_between_begin_and_end() {
        for name in [
            "glBegin",
            "glEnd",
            "glVertex3f",
            "glVertex2dv",
            "glVertex4hvNV",
            "glVertexAttrib4Nubv",
            "glVertexAttribI4ui",
            "glVertexAttribL1d",
            "glVertexAttribP4ui",
            "glVertexAttrib2fARB",
            "glColor4ub",
            "glColorP3ui",
            "glSecondaryColor3fEXT",
            "glNormal3sv",
            "glTexCoord2f",
            "glMultiTexCoord4iv",
            "glFogCoordf",
            "glIndexub",
            "glEdgeFlagv",
            "glMaterialfv",
            "glEvalCoord2d",
            "glEvalPoint1",
            "glArrayElement",
            "glCallLists",
        ] {
            assert!(classify(name) & class::IMMEDIATE != 0, "{name}");
        }
        for name in [
            "glVertexAttribPointer",
            "glVertexAttribIPointer",
            "glVertexAttribDivisor",
            "glVertexAttribFormat",
            "glVertexArrayAttribBinding",
            "glVertexPointer",
            "glColorPointer",
            "glColorMask",
            "glColorMaterial",
            "glNormalPointer",
            "glTexCoordPointer",
            "glIndexMask",
            "glDrawArrays",
            "glEvalMesh1",
        ] {
            assert_eq!(classify(name) & class::IMMEDIATE, 0, "{name}");
        }
    }

    #[test]
    fn table_is_sorted_unique_and_complete() {
        assert!(FUNCTIONS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(FUNCTIONS.len() > 3000, "{} functions", FUNCTIONS.len());
        for name in [
            "glDrawArrays",
            "glUniform1f",
            "glXSwapBuffers",
            "eglGetProcAddress",
            "glBegin",
            "glShaderSource",
        ] {
            assert!(function_id(name).is_some(), "{name} missing");
        }
        assert!(FUNCTIONS.iter().all(|f| f.params.len() <= MAX_ARGS));
    }

    #[test]
    fn pointer_lengths_from_the_registry() {
        let len = |f: &str, i: usize| FUNCTIONS[function_id(f).unwrap() as usize].params[i].len;
        assert_eq!(len("glUniform4fv", 2), "count*4");
        assert_eq!(len("glUniformMatrix4fv", 3), "count*16");
        assert_eq!(len("glShaderSource", 2), "count");
        assert_eq!(len("glBufferData", 2), "size");
        assert_eq!(len("glGetIntegerv", 1), "COMPSIZE(pname)");
        assert_eq!(len("glDrawArrays", 0), "");
    }

    #[test]
    fn abi_classes_of_known_functions() {
        let f = &FUNCTIONS[function_id("glUniform1f").unwrap() as usize];
        assert_eq!(f.params[0].abi, Abi::I32);
        assert_eq!(f.params[1].abi, Abi::F32);
        let f = &FUNCTIONS[function_id("glShaderSource").unwrap() as usize];
        assert_eq!(
            f.params.iter().map(|p| p.abi).collect::<Vec<_>>(),
            [Abi::U32, Abi::I32, Abi::Ptr, Abi::Ptr]
        );
        let f = &FUNCTIONS[function_id("glXSwapBuffers").unwrap() as usize];
        assert_eq!(f.params[1].abi, Abi::U64);
    }

    #[test]
    fn enum_names_use_groups() {
        assert_eq!(gl_enum_name(0x0004, "PrimitiveType"), Some("GL_TRIANGLES"));
        assert_eq!(gl_enum_name(0x8B31, ""), Some("GL_VERTEX_SHADER"));
        assert_eq!(gl_enum_value("GL_VIEWPORT"), Some(0x0BA2));
    }

    #[test]
    fn classification() {
        use class::*;
        assert_eq!(classify("glDrawArrays"), DRAW);
        assert_eq!(
            classify("glDrawElementsInstancedBaseVertexBaseInstance"),
            DRAW
        );
        assert_eq!(classify("glMultiDrawArraysIndirect"), DRAW);
        assert_eq!(classify("glDrawBuffers"), 0);
        assert_eq!(classify("glDrawPixels"), 0);
        assert_eq!(classify("eglSwapBuffers"), FRAME_END);
        assert_eq!(classify("glUseProgram"), SHADER_SWITCH);
        assert_eq!(classify("glProgramBinary"), SHADER_RECORD | BINARY);
        assert_eq!(classify("glGetIntegerv"), BINARY);
        assert_eq!(classify("glNewList"), LIST);
        assert_eq!(classify("glProgramUniformHandleui64vARB"), HANDLE_UNIFORM);
        assert_eq!(classify("glUniformHandleui64NV"), HANDLE_UNIFORM);
        for f in [
            "glFinish",
            "glMapBufferRangeEXT",
            "glGetNamedBufferSubData",
            "glReadnPixelsKHR",
        ] {
            assert_eq!(classify(f), GPU_SYNC, "{f}");
        }
        assert_eq!(classify("glFinishFenceNV"), 0);
        assert_eq!(classify("glFlush"), 0);
        assert_eq!(classify("glGetBufferParameteriv"), 0);
    }
}
