//! The GL state `info state` reads: a table of common state names with the
//! query each needs (`glGetIntegerv`, `glGetFloatv` or `glIsEnabled`) and
//! how many values it returns. A name outside the table is read with
//! `glGetFloatv` into a guarded buffer of `MAX_STATE_VALUES` and its first
//! value is shown; a name GL does not know comes back with its GL error.

use gldbg_proto::shm::{QUERY_ENABLED, QUERY_FLOAT, QUERY_INT};

/// One state value: its GL name, the query kind (`QUERY_*`), the value count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateName {
    pub name: &'static str,
    pub kind: u32,
    pub count: u32,
}

const fn s(name: &'static str, kind: u32, count: u32) -> StateName {
    StateName { name, kind, count }
}

/// The state `info state` shows without a name (GL 3.3 core names, so every
/// query is valid in a core context).
pub static COMMON: &[StateName] = &[
    s("GL_VIEWPORT", QUERY_INT, 4),
    s("GL_SCISSOR_BOX", QUERY_INT, 4),
    s("GL_DEPTH_RANGE", QUERY_FLOAT, 2),
    s("GL_CURRENT_PROGRAM", QUERY_INT, 1),
    s("GL_VERTEX_ARRAY_BINDING", QUERY_INT, 1),
    s("GL_ARRAY_BUFFER_BINDING", QUERY_INT, 1),
    s("GL_ELEMENT_ARRAY_BUFFER_BINDING", QUERY_INT, 1),
    s("GL_UNIFORM_BUFFER_BINDING", QUERY_INT, 1),
    s("GL_DRAW_FRAMEBUFFER_BINDING", QUERY_INT, 1),
    s("GL_READ_FRAMEBUFFER_BINDING", QUERY_INT, 1),
    s("GL_RENDERBUFFER_BINDING", QUERY_INT, 1),
    s("GL_ACTIVE_TEXTURE", QUERY_INT, 1),
    s("GL_TEXTURE_BINDING_2D", QUERY_INT, 1),
    s("GL_DEPTH_TEST", QUERY_ENABLED, 1),
    s("GL_STENCIL_TEST", QUERY_ENABLED, 1),
    s("GL_BLEND", QUERY_ENABLED, 1),
    s("GL_CULL_FACE", QUERY_ENABLED, 1),
    s("GL_SCISSOR_TEST", QUERY_ENABLED, 1),
    s("GL_POLYGON_OFFSET_FILL", QUERY_ENABLED, 1),
    s("GL_MULTISAMPLE", QUERY_ENABLED, 1),
    s("GL_RASTERIZER_DISCARD", QUERY_ENABLED, 1),
    s("GL_FRAMEBUFFER_SRGB", QUERY_ENABLED, 1),
    s("GL_BLEND_SRC_RGB", QUERY_INT, 1),
    s("GL_BLEND_DST_RGB", QUERY_INT, 1),
    s("GL_BLEND_SRC_ALPHA", QUERY_INT, 1),
    s("GL_BLEND_DST_ALPHA", QUERY_INT, 1),
    s("GL_BLEND_EQUATION_RGB", QUERY_INT, 1),
    s("GL_BLEND_EQUATION_ALPHA", QUERY_INT, 1),
    s("GL_BLEND_COLOR", QUERY_FLOAT, 4),
    s("GL_COLOR_CLEAR_VALUE", QUERY_FLOAT, 4),
    s("GL_DEPTH_CLEAR_VALUE", QUERY_FLOAT, 1),
    s("GL_STENCIL_CLEAR_VALUE", QUERY_INT, 1),
    s("GL_COLOR_WRITEMASK", QUERY_INT, 4),
    s("GL_DEPTH_WRITEMASK", QUERY_INT, 1),
    s("GL_DEPTH_FUNC", QUERY_INT, 1),
    s("GL_STENCIL_FUNC", QUERY_INT, 1),
    s("GL_STENCIL_REF", QUERY_INT, 1),
    s("GL_CULL_FACE_MODE", QUERY_INT, 1),
    s("GL_FRONT_FACE", QUERY_INT, 1),
    s("GL_POLYGON_MODE", QUERY_INT, 2),
    s("GL_LINE_WIDTH", QUERY_FLOAT, 1),
    s("GL_POINT_SIZE", QUERY_FLOAT, 1),
    s("GL_UNPACK_ALIGNMENT", QUERY_INT, 1),
    s("GL_PACK_ALIGNMENT", QUERY_INT, 1),
];

/// Names shown as GL enum names rather than numbers (their values are enums).
pub fn value_is_enum(name: &str) -> bool {
    name.starts_with("GL_BLEND_SRC")
        || name.starts_with("GL_BLEND_DST")
        || name.starts_with("GL_BLEND_EQUATION")
        || matches!(
            name,
            "GL_DEPTH_FUNC"
                | "GL_STENCIL_FUNC"
                | "GL_CULL_FACE_MODE"
                | "GL_FRONT_FACE"
                | "GL_POLYGON_MODE"
                | "GL_ACTIVE_TEXTURE"
        )
}

/// The query for `name` (a GL enum name, any case): from the table, or
/// `glGetFloatv` with one value shown. None if GL has no such enum.
pub fn lookup(name: &str) -> Option<(StateName, u32)> {
    let upper = name.trim().to_ascii_uppercase();
    let upper = if upper.starts_with("GL_") {
        upper
    } else {
        format!("GL_{upper}")
    };
    let value = gldbg_proto::api::gl_enum_value(&upper)?;
    let entry = COMMON
        .iter()
        .find(|e| e.name == upper)
        .copied()
        .unwrap_or(StateName {
            name: gldbg_proto::api::gl_enum_name(value, "").unwrap_or("?"),
            kind: QUERY_FLOAT,
            count: 1,
        });
    Some((entry, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_common_name_is_a_gl_enum() {
        for e in COMMON {
            assert!(
                gldbg_proto::api::gl_enum_value(e.name).is_some(),
                "{}",
                e.name
            );
            assert!((1..=16).contains(&e.count));
        }
    }

    #[test]
    fn looks_names_up() {
        let (e, v) = lookup("gl_viewport").unwrap();
        assert_eq!(
            (e.name, e.kind, e.count, v),
            ("GL_VIEWPORT", QUERY_INT, 4, 0x0BA2)
        );
        assert_eq!(lookup("DEPTH_TEST").unwrap().0.kind, QUERY_ENABLED);
        let (e, v) = lookup("GL_MAX_TEXTURE_SIZE").unwrap();
        assert_eq!((e.kind, e.count, v), (QUERY_FLOAT, 1, 0x0D33));
        assert!(lookup("GL_NOT_A_THING").is_none());
        assert!(value_is_enum("GL_BLEND_SRC_RGB"));
    }
}
