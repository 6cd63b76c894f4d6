//! Reading the qualifiers of a declaration: its storage and explicit location.

use glsl_lang::ast;

/// Whether the qualifier has storage `s` (`in`, `out`, `varying`...).
pub(super) fn has_storage(q: &Option<ast::TypeQualifier>, s: &ast::StorageQualifierData) -> bool {
    q.as_ref().is_some_and(|q| {
        q.qualifiers.iter().any(|spec| matches!(&spec.content, ast::TypeQualifierSpecData::Storage(x) if &x.content == s))
    })
}

/// Explicit `layout(location = N)` of a qualifier.
pub(super) fn location(q: &Option<ast::TypeQualifier>) -> Option<i32> {
    q.as_ref()?
        .qualifiers
        .iter()
        .find_map(|spec| match &spec.content {
            ast::TypeQualifierSpecData::Layout(l) => {
                l.ids.iter().find_map(|id| match &id.content {
                    ast::LayoutQualifierSpecData::Identifier(name, Some(e))
                        if name.as_str() == "location" =>
                    {
                        match e.content {
                            ast::ExprData::IntConst(i) => Some(i),
                            ast::ExprData::UIntConst(u) => Some(u as i32),
                            _ => None,
                        }
                    }
                    _ => None,
                })
            }
            _ => None,
        })
}
