//! Exceptions on the Microsoft ABI, what a throw of a class needs besides the throw: the
//! copy constructors of the classes its object may be caught as by value (the thrown
//! class and its public bases), generated in the module so that the throw's
//! CatchableTypes name them and the runtime can build a by-value catch parameter (see
//! `cir.copy_catch_param`), as Clang's Sema marks them used at every throw on this ABI.
//! A trivially copyable class has none: the runtime copies its bytes.

use super::R;
use super::function::FnGen;
use crate::ast::Node;
use std::collections::BTreeSet;

/// Whether a constructor declaration is a copy constructor: its first parameter is a
/// `const` lvalue reference (to its class, as constructors of a class take).
fn is_copy_constructor(decl: &Node) -> bool {
    decl.kind == "CXXConstructorDecl"
        && decl
            .children()
            .find(|c| c.kind == "ParmVarDecl")
            .and_then(|p| p.ty.as_ref())
            .is_some_and(|t| {
                let text = t.qual_type.as_str();
                text.starts_with("const ") && text.ends_with('&') && !text.ends_with("&&")
            })
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Queues the non-trivial copy constructors of `class` and of its public bases.
    pub fn queue_catchable_copy_constructors(&mut self, e: &Node, class: &str) -> R<()> {
        let mut classes = vec![class.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(current) = classes.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            let layout = self.st.layout(self.b.ctx, e, &current)?;
            classes.extend(
                layout
                    .bases
                    .iter()
                    .filter(|b| b.public)
                    .map(|b| b.name.clone()),
            );
            let class_node = self.st.class_node(e, &current)?;
            let Some(copy) = class_node.children().find(|c| is_copy_constructor(c)) else {
                continue;
            };
            if !self.is_trivial_special_member(e, &current, copy)? {
                self.st.callee(self.b.ctx, copy)?;
            }
        }
        Ok(())
    }
}
