//! What a shader declares, for the checker: struct and block fields,
//! user function signatures, variables.

use std::collections::HashMap;

use glsl_lang::ast;
use glsl_lang::visitor::{Host, Visit, Visitor};

use crate::builtins;
use crate::steps::type_string;

/// What the shader declares, for the checker.
#[derive(Default)]
pub(crate) struct Decls {
    /// Struct and block fields by type name; `None` if the name has
    /// different definitions (e.g. in two functions).
    pub structs: HashMap<String, Option<Vec<(String, String)>>>,
    /// User functions: name → (return type, parameter types) per overload.
    pub functions: HashMap<String, Vec<(String, Vec<String>)>>,
    /// Every declared variable: name → byte offsets of its declarations.
    pub variables: HashMap<String, Vec<usize>>,
}

impl Decls {
    pub(crate) fn collect(tu: &ast::TranslationUnit) -> Decls {
        struct Collect(Decls);
        impl Collect {
            fn fields(&mut self, name: &str, fields: &[ast::StructFieldSpecifier]) {
                let list: Vec<(String, String)> = fields
                    .iter()
                    .flat_map(|f| {
                        f.identifiers.iter().map(|id| {
                            (
                                id.ident.0.to_string(),
                                type_string(&f.ty, id.array_spec.as_ref()),
                            )
                        })
                    })
                    .collect();
                let entry = self
                    .0
                    .structs
                    .entry(name.to_string())
                    .or_insert_with(|| Some(list.clone()));
                if entry.as_ref() != Some(&list) {
                    *entry = None;
                }
            }
            fn var(&mut self, id: &ast::Identifier) {
                let at = id.span.map_or(0, |s| usize::from(s.start().offset));
                self.0
                    .variables
                    .entry(id.0.to_string())
                    .or_default()
                    .push(at);
            }
        }
        impl Visitor for Collect {
            fn visit_struct_specifier(&mut self, s: &ast::StructSpecifier) -> Visit {
                if let Some(n) = &s.name {
                    self.fields(n.0.as_str(), &s.fields);
                }
                Visit::Children
            }
            fn visit_block(&mut self, b: &ast::Block) -> Visit {
                self.fields(b.name.0.as_str(), &b.fields);
                match &b.identifier {
                    Some(id) => self.var(&id.ident),
                    None => {
                        for f in &b.fields {
                            for id in &f.identifiers {
                                self.var(&id.ident);
                            }
                        }
                    }
                }
                // Block fields are not variables of their own.
                Visit::Parent
            }
            fn visit_function_prototype(&mut self, p: &ast::FunctionPrototype) -> Visit {
                let ret = type_string(&p.ty.ty, None);
                let params = crate::steps::parameter_types(p);
                let list = self.0.functions.entry(p.name.0.to_string()).or_default();
                if !list.iter().any(|(_, ps)| *ps == params) {
                    list.push((ret, params));
                }
                Visit::Children
            }
            fn visit_init_declarator_list(&mut self, l: &ast::InitDeclaratorList) -> Visit {
                if crate::steps::qualifies_only(&l.head) {
                    return Visit::Parent;
                }
                Visit::Children
            }
            fn visit_single_declaration(&mut self, d: &ast::SingleDeclaration) -> Visit {
                if let Some(n) = &d.name {
                    self.var(n);
                }
                Visit::Children
            }
            fn visit_single_declaration_no_type(
                &mut self,
                d: &ast::SingleDeclarationNoType,
            ) -> Visit {
                self.var(&d.ident.ident);
                Visit::Children
            }
            fn visit_function_parameter_declarator(
                &mut self,
                d: &ast::FunctionParameterDeclarator,
            ) -> Visit {
                self.var(&d.ident.ident);
                Visit::Children
            }
            fn visit_condition(&mut self, c: &ast::Condition) -> Visit {
                if let ast::ConditionData::Assignment(_, id, _) = &c.content {
                    self.var(id);
                }
                Visit::Children
            }
        }
        let mut c = Collect(Decls::default());
        tu.visit(&mut c);
        c.0
    }
}

/// The fields (name, type as written) of a struct or block type, built-in
/// (`gl_DepthRangeParameters`) or declared; `None`: unknown.
pub(crate) fn struct_fields(decls: &Decls, name: &str) -> Option<Vec<(String, String)>> {
    if let Some(f) = builtins::builtin_struct(name) {
        return Some(
            f.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        );
    }
    decls.structs.get(name).cloned().flatten()
}
