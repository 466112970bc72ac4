//! Block scopes for the lowered phases: which allocas of a structured module live in a
//! nested region, and the span of source locations that region covers.
//!
//! `flatten-cfg` hoists allocas to the function entry and keeps no scope boundary, so at
//! the flat, Itanium and MSVC phases a block-scope variable would live until its
//! function returns. Given the [`BlockScopes`] of the structured module a lowered one
//! came from ([`crate::RunConfig::block_scopes`]), the interpreter ends such a variable's
//! lifetime when its frame executes an op located outside the region's span, and starts
//! it again when an op inside runs: a use after the scope is then reported at every
//! phase. Ops without a location (made by passes) change nothing. Only SSA values defined
//! in the region can name the alloca directly, and they are used only inside it (so
//! inside the span); an access through a pointer kept in memory is the use after scope
//! being detected.

use ehir_core::{Function, Module, Op, Region, Visit};
use std::collections::HashMap;

/// The source span `[first, last]` (byte offsets) of the ops of a nested region.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScopeSpan {
    /// Byte offset of the region's first op.
    pub first: u32,
    /// Byte offset of its last op.
    pub last: u32,
}

impl ScopeSpan {
    /// Whether a location lies in the span.
    pub fn contains(self, loc: u32) -> bool {
        self.first <= loc && loc <= self.last
    }
}

/// For each function of a structured module (by name), the allocas in nested regions (by
/// their source location) with their region's span.
#[derive(Clone, Debug, Default)]
pub struct BlockScopes {
    by_function: HashMap<String, HashMap<u32, ScopeSpan>>,
}

impl BlockScopes {
    /// The block scopes of the structured functions of `module` (built once per input,
    /// before lowering). Allocas without a location, or sharing theirs with another
    /// alloca of the function, are left out.
    pub fn of_module(module: &Module) -> BlockScopes {
        let mut by_function = HashMap::new();
        for func in module.functions.values() {
            if func.is_declaration() || func.phase != ehir_core::Phase::Structured {
                continue;
            }
            let allocas = function_scopes(func);
            if !allocas.is_empty() {
                by_function.insert(module.ctx.name(func.name).to_string(), allocas);
            }
        }
        BlockScopes { by_function }
    }

    /// The span of the scope of the alloca at `loc` in the function named `function`.
    pub fn span(&self, function: &str, loc: u32) -> Option<ScopeSpan> {
        self.by_function.get(function)?.get(&loc).copied()
    }

    /// Whether the function named `function` has block-scope allocas.
    pub fn has_function(&self, function: &str) -> bool {
        self.by_function.contains_key(function)
    }
}

/// The block-scope allocas of one structured function.
fn function_scopes(func: &Function) -> HashMap<u32, ScopeSpan> {
    let region_of = |op: Op| -> Option<Region> {
        func.layout
            .op_block(op)
            .and_then(|b| func.layout.block_region(b))
    };
    // Regions in the order they are first entered (parents before children), the span
    // of the ops directly in each, and the allocas of nested regions.
    let mut order: Vec<Region> = Vec::new();
    let mut spans: HashMap<Region, ScopeSpan> = HashMap::new();
    let mut allocas: Vec<(u32, Region)> = Vec::new();
    let mut alloca_locs: HashMap<u32, u32> = HashMap::new();
    func.visit_in_order(&mut |v| {
        let Visit::Op(op) = v else {
            return;
        };
        order.extend_from_slice(func.dfg.regions(op));
        let (Some(region), Some(loc)) = (region_of(op), func.dfg.loc(op).offset()) else {
            return;
        };
        let loc = loc as u32;
        let span = spans.entry(region).or_insert(ScopeSpan {
            first: loc,
            last: loc,
        });
        span.first = span.first.min(loc);
        span.last = span.last.max(loc);
        if matches!(func.dfg.kind(op), ehir_core::OpKind::Alloca { .. }) {
            *alloca_locs.entry(loc).or_insert(0) += 1;
            if Some(region) != func.body {
                allocas.push((loc, region));
            }
        }
    });
    // Children after parents: fold each region's span into its parent's, last first.
    for &region in order.iter().rev() {
        let Some(span) = spans.get(&region).copied() else {
            continue;
        };
        let Some(parent) = func.dfg.region_parent(region).and_then(region_of) else {
            continue;
        };
        let p = spans.entry(parent).or_insert(span);
        p.first = p.first.min(span.first);
        p.last = p.last.max(span.last);
    }
    allocas
        .into_iter()
        .filter(|(loc, _)| alloca_locs.get(loc) == Some(&1))
        .filter_map(|(loc, region)| spans.get(&region).map(|&s| (loc, s)))
        .collect()
}
