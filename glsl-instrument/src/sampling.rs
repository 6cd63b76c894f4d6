//! The texture reads of a shader (issue 16's `info sources`): every call
//! of a sampling built-in (`texture*`, `texelFetch*`, GLSL 1.10's
//! `texture2D`...) with the step it is evaluated in, its sampler and its
//! coordinate argument as source text. The coordinate is evaluated at the
//! step's start by a `dprintf` replay: exact where it depends on nothing
//! the same step writes first (the usual `c = texture(s, uv)`).

use crate::parse::expr_text;
use crate::steps::{call_name, step_exprs, walk_expr};
use crate::{ShaderModel, StepId};

/// One call of a sampling built-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplingSite {
    pub step: StepId,
    /// The built-in (`texture`, `texelFetch`, ...).
    pub function: String,
    /// The sampler argument as written (`u_tex`, `shadows[1]`).
    pub sampler: String,
    /// The coordinate argument as written.
    pub coord: String,
    /// Whether the coordinate is in texels (`texelFetch`), not normalized.
    pub texels: bool,
    /// Whether the coordinate carries a divisor in its last component
    /// (`textureProj`).
    pub projective: bool,
}

/// Whether `name` samples a texture, and how its coordinate reads
/// (texels, projective).
fn sampling(name: &str) -> Option<(bool, bool)> {
    let texels = name.starts_with("texelFetch");
    let projective = name.contains("Proj");
    let known = texels
        || name.starts_with("texture")
            && !matches!(
                name,
                "textureSize" | "textureQueryLod" | "textureQueryLevels" | "textureSamples"
            );
    known.then_some((texels, projective))
}

impl ShaderModel {
    /// Every call of a sampling built-in, by step, in evaluation order.
    pub fn sampling_sites(&self) -> Vec<SamplingSite> {
        let mut out = Vec::new();
        for (i, info) in self.model.info.iter().enumerate() {
            let func = &self.model.functions[info.func];
            let glsl_lang::ast::ExternalDeclarationData::FunctionDefinition(def) =
                &self.tu.0[func.decl].content
            else {
                continue;
            };
            let mut body = def.statement.clone();
            let Some(stmt) = crate::instrument::position::stmt_at(&mut body, &info.path) else {
                continue;
            };
            let step = self.model.steps[i].id;
            step_exprs(stmt, info.part, &mut |e| {
                walk_expr(e, &mut |x| {
                    let Some((name, n)) = call_name(x) else {
                        return;
                    };
                    let Some((texels, projective)) = sampling(name).filter(|_| n >= 2) else {
                        return;
                    };
                    let function = name.to_string();
                    if let glsl_lang::ast::ExprData::FunCall(_, args) = &x.content {
                        out.push(SamplingSite {
                            step,
                            function,
                            sampler: expr_text(&args[0]),
                            coord: expr_text(&args[1]),
                            texels,
                            projective,
                        });
                    }
                })
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::{ShaderModel, Stage};

    #[test]
    fn sampling_calls_are_found_with_their_arguments() {
        let m = ShaderModel::parse(
            "#version 330\nuniform sampler2D a;\nuniform sampler2D b[2];\nin vec2 uv;\n\
             out vec4 o;\nvoid main() {\n  vec4 c = texture(a, uv * 2.0);\n  \
             if (texelFetch(b[1], ivec2(3, 4), 0).r > 0.5) c += vec4(1.0);\n  \
             o = c + vec4(textureSize(a, 0), 0.0, 0.0);\n}\n",
            Stage::Fragment,
        )
        .unwrap();
        let sites = m.sampling_sites();
        let got: Vec<_> = sites
            .iter()
            .map(|s| {
                (
                    s.function.as_str(),
                    s.sampler.as_str(),
                    s.coord.as_str(),
                    s.texels,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("texture", "a", "uv * 2.", false),
                ("texelFetch", "b[1]", "ivec2(3, 4)", true)
            ]
        );
        assert_ne!(sites[0].step, sites[1].step);
    }
}
