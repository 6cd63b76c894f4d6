//! Dialect: what the shader's GLSL version (desktop or ES) and extensions
//! allow the debug shader: how integers reach the float value output,
//! whether `uint` and doubles exist, and the precision of what it declares.

use crate::parse::Names;
use crate::{ShaderModel, Stage};

/// How integers reach the float value output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bits {
    /// intBitsToFloat / uintBitsToFloat exist.
    Exact,
    /// Only with GL_ARB_shader_bit_encoding: decided by `#ifdef`.
    IfExtension,
    /// Converted to float (and reported as float).
    Converted,
}

/// The language facts the debug shader depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub bits: Bits,
    pub has_uint: bool,
    pub has_double: bool,
    /// Precision prefix of the debug declarations: `highp ` in ES, a macro
    /// (see `prelude`) in an ES 1.00 fragment shader, empty on desktop.
    pub precision: String,
    /// Text before the debug declarations (the precision macro's definition).
    pub prelude: String,
    pub es: bool,
}

impl Dialect {
    /// The dialect of `version` (`es`) with `extensions` enabled, for a
    /// shader of `stage`; `names` gives the precision macro a fresh name.
    pub fn new(
        version: u32,
        es: bool,
        extensions: &[String],
        stage: Stage,
        names: &mut Names,
    ) -> Dialect {
        let has_ext = |name: &str| extensions.iter().any(|e| e == name);
        let bits = if (!es && version >= 330)
            || (es && version >= 300)
            || has_ext("GL_ARB_shader_bit_encoding")
            || has_ext("GL_ARB_gpu_shader5")
        {
            Bits::Exact
        } else if !es && version >= 130 {
            Bits::IfExtension
        } else {
            Bits::Converted
        };
        let has_uint = if es {
            version >= 300
        } else {
            version >= 130 || has_ext("GL_EXT_gpu_shader4")
        };
        let has_double = !es && (version >= 400 || has_ext("GL_ARB_gpu_shader_fp64"));
        let mut prelude = String::new();
        // Only the fragment language may lack highp (ES 1.00).
        let precision = if es && version < 300 && stage == Stage::Fragment {
            let macro_name = names.fresh("GLDBG_P");
            prelude.push_str(&format!(
                "#ifdef GL_FRAGMENT_PRECISION_HIGH\n#define {macro_name} highp\n#else\n#define {macro_name} mediump\n#endif\n"
            ));
            format!("{macro_name} ")
        } else if es {
            "highp ".to_string()
        } else {
            String::new()
        };
        Dialect {
            bits,
            has_uint,
            has_double,
            precision,
            prelude,
            es,
        }
    }

    /// The dialect of `m`'s shader.
    pub(crate) fn of(m: &ShaderModel, names: &mut Names) -> Dialect {
        Dialect::new(m.version, m.es, &m.extensions, m.stage, names)
    }

    /// `#extension` lines the debug shader adds for its own needs.
    pub fn extension_lines(&self) -> Vec<String> {
        match self.bits {
            Bits::IfExtension => vec!["#extension GL_ARB_shader_bit_encoding : enable".into()],
            _ => Vec::new(),
        }
    }

    /// The declaration of a global of GLSL type `ty` (a hoisted index):
    /// precision only on the types that take one (not bool, structs).
    pub fn global(&self, ty: &str, name: &str) -> String {
        let numeric = ["float", "vec", "int", "ivec", "uint", "uvec", "mat"]
            .iter()
            .any(|t| ty.starts_with(t));
        let p = if self.es && numeric { "highp " } else { "" };
        format!("{p}{ty} {name};\n")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn dialect(version: u32, es: bool, ext: &[&str], stage: Stage) -> Dialect {
        let idents = HashSet::new();
        let mut names = Names::new(&idents);
        let ext: Vec<String> = ext.iter().map(|e| e.to_string()).collect();
        Dialect::new(version, es, &ext, stage, &mut names)
    }

    #[test]
    fn integer_bits_follow_the_version_and_extensions() {
        assert_eq!(dialect(330, false, &[], Stage::Fragment).bits, Bits::Exact);
        assert_eq!(dialect(300, true, &[], Stage::Fragment).bits, Bits::Exact);
        let d = dialect(130, false, &[], Stage::Fragment);
        assert_eq!(d.bits, Bits::IfExtension);
        assert_eq!(d.extension_lines().len(), 1);
        assert_eq!(
            dialect(110, false, &[], Stage::Vertex).bits,
            Bits::Converted
        );
        let ext = ["GL_ARB_gpu_shader5"];
        assert_eq!(dialect(150, false, &ext, Stage::Vertex).bits, Bits::Exact);
        assert_eq!(dialect(100, true, &[], Stage::Vertex).bits, Bits::Converted);
    }

    #[test]
    fn uint_and_double_exist_where_the_language_has_them() {
        assert!(!dialect(120, false, &[], Stage::Fragment).has_uint);
        assert!(dialect(120, false, &["GL_EXT_gpu_shader4"], Stage::Fragment).has_uint);
        assert!(!dialect(100, true, &[], Stage::Fragment).has_uint);
        assert!(dialect(310, true, &[], Stage::Compute).has_uint);
        assert!(dialect(400, false, &[], Stage::Fragment).has_double);
        assert!(!dialect(320, true, &[], Stage::Fragment).has_double);
        assert!(dialect(330, false, &["GL_ARB_gpu_shader_fp64"], Stage::Vertex).has_double);
    }

    #[test]
    fn es_precision_is_highp_or_a_macro_in_es_100_fragments() {
        assert_eq!(dialect(330, false, &[], Stage::Fragment).precision, "");
        assert_eq!(dialect(100, true, &[], Stage::Vertex).precision, "highp ");
        let d = dialect(100, true, &[], Stage::Fragment);
        assert_eq!(d.precision, "GLDBG_P ");
        assert!(
            d.prelude.contains("#define GLDBG_P mediump"),
            "{}",
            d.prelude
        );
        assert_eq!(d.global("bool", "k"), "bool k;\n");
        assert_eq!(d.global("ivec2", "k"), "highp ivec2 k;\n");
        assert_eq!(
            dialect(330, false, &[], Stage::Fragment).global("int", "k"),
            "int k;\n"
        );
    }
}
