//! Shape checks: op results and block parameters agree with their values, terminators end
//! every block, region counts and successor counts per op kind (from the op table),
//! successors stay inside their region and never target an entry block, region
//! termination rules (`cir.yield`, `cir.condition`, `cir.break`, `cir.continue`,
//! `cir.resume`), region entry parameters, `cir.case`/`cir.label`/`cir.goto`, and phase
//! membership.

use super::{FuncVerifier, OpView};
use crate::dfg::ValueDef;
use crate::diagnostics::Diagnostic;
use crate::entities::{Op, Region, Value};
use crate::function::Phase;
use crate::ops::{
    CaseKind, CleanupKind, Count, CountRange, ExtraData, HandlerKey, MissingList, OpKind,
};
use std::collections::BTreeMap;

/// The `cir.label`s of a function by name, with the op defining each first.
pub(crate) type Labels = BTreeMap<crate::entities::Symbol, Op>;

/// What a region is for, from its parent op and position.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum RegionRole {
    FunctionBody,
    LoopCondition,
    LoopBody,
    LoopStep,
    TryBody,
    TryHandler(HandlerKey),
    CleanupBody(CleanupKind),
    CleanupRegion(CleanupKind),
    SwitchBody,
    CaseBody,
    ArrayElement,
    /// `cir.scope`, `cir.if`, `cir.ternary`, and regions of ops that should have none.
    Other,
}

impl FuncVerifier<'_> {
    pub(crate) fn region_role(&self, region: Region) -> RegionRole {
        let Some(parent) = self.index.region_parent[region].expand() else {
            return RegionRole::FunctionBody;
        };
        let n = self.index.region_number[region];
        match *self.dfg.kind(parent) {
            OpKind::While => match n {
                0 => RegionRole::LoopCondition,
                _ => RegionRole::LoopBody,
            },
            OpKind::DoWhile => match n {
                1 => RegionRole::LoopCondition,
                _ => RegionRole::LoopBody,
            },
            OpKind::For => match n {
                0 => RegionRole::LoopCondition,
                1 => RegionRole::LoopBody,
                _ => RegionRole::LoopStep,
            },
            OpKind::Try { handlers } => match n {
                0 => RegionRole::TryBody,
                _ => self
                    .handler_keys(handlers)
                    .get(n as usize - 1)
                    .map(|&k| RegionRole::TryHandler(k))
                    .unwrap_or(RegionRole::Other),
            },
            OpKind::CleanupScope { kind } => match n {
                0 => RegionRole::CleanupBody(kind),
                _ => RegionRole::CleanupRegion(kind),
            },
            OpKind::Switch => RegionRole::SwitchBody,
            OpKind::Case { .. } => RegionRole::CaseBody,
            OpKind::ArrayCtor | OpKind::ArrayDtor => RegionRole::ArrayElement,
            _ => RegionRole::Other,
        }
    }

    /// The handler keys stored in an extra, empty when the extra is missing or not a
    /// handler list.
    pub(crate) fn handler_keys(&self, extra: crate::entities::Extra) -> &[HandlerKey] {
        match self.dfg.extras.get(extra) {
            Some(ExtraData::Handlers(keys)) => keys,
            _ => &[],
        }
    }

    /// The regions enclosing an op, innermost first.
    pub(crate) fn enclosing_regions(&self, op: Op) -> impl Iterator<Item = Region> + '_ {
        let mut next = self.index.op_region(op);
        std::iter::from_fn(move || {
            let region = next?;
            next = self.index.region_parent[region]
                .expand()
                .and_then(|p| self.index.op_region(p));
            Some(region)
        })
    }

    /// The ops enclosing an op, innermost first.
    pub(crate) fn enclosing_ops(&self, op: Op) -> impl Iterator<Item = Op> + '_ {
        self.enclosing_regions(op)
            .filter_map(|r| self.index.region_parent[r].expand())
    }

    /// Whether value `v` exists and its record says it is defined by `def`.
    fn recorded_as(&self, v: Value, def: ValueDef) -> bool {
        self.dfg.values.get(v).is_some_and(|d| d.def == def)
    }

    /// Op results agree with their values' records.
    pub(crate) fn check_op_results(&self, view: &OpView) {
        let op = view.op;
        for (i, &v) in view.results.iter().enumerate() {
            if !self.recorded_as(v, ValueDef::Result(op, i as u32)) {
                self.op_error(
                    op,
                    format!(
                        "result #{i} of '{}' is not recorded as this op's result",
                        view.name()
                    ),
                );
            }
        }
    }

    /// Block parameters agree with their values' records.
    pub(crate) fn check_block_params(&self) {
        for &block in &self.index.blocks {
            for (i, &v) in self.dfg.block_params(block).iter().enumerate() {
                if !self.recorded_as(v, ValueDef::Param(block, i as u32)) {
                    self.error(Diagnostic::error(
                        self.block_loc(block),
                        format!(
                            "parameter #{i} of {} is not recorded as this block's parameter",
                            self.index.block_name(block)
                        ),
                    ));
                }
            }
        }
    }

    /// Empty regions, region entry parameters.
    pub(crate) fn check_region_shapes(&self) {
        for &region in &self.index.regions {
            if self.index.region_blocks(region).is_empty() {
                match self.index.region_parent[region].expand() {
                    Some(op) => self.op_error(
                        op,
                        format!(
                            "region #{} of '{}' has no blocks",
                            self.index.region_number[region],
                            self.op_name(op)
                        ),
                    ),
                    None => self.error(Diagnostic::error(
                        self.func.loc,
                        format!("the body of @{} has no blocks", self.func_name()),
                    )),
                }
            }
            self.check_entry_params(region);
        }
    }

    /// The number of regions of an op's kind (the op table's region count).
    pub(crate) fn check_op_region_count(&self, view: &OpView) {
        let op = view.op;
        let count = view.regions.len();
        let kind = view.kind;
        // Most ops have a fixed region count (zero): no need to resolve a list payload.
        if let Count::Exactly(n) = view.info.regions
            && n as usize == count
        {
            return;
        }
        let Ok(CountRange { min, max }) = kind.region_count(&self.dfg.extras) else {
            return;
        };
        if count < min || count > max {
            let name = kind.name();
            let message = if max == 0 {
                if self.func.phase == Phase::Structured {
                    format!("'{name}' cannot have regions")
                } else {
                    format!(
                        "'{name}' cannot have regions ({} functions have no nested regions)",
                        self.func.phase.name()
                    )
                }
            } else if min == max {
                format!("'{name}' must have {min} region(s), but has {count}")
            } else {
                format!("'{name}' must have {min} to {max} regions, but has {count}")
            };
            self.op_error(op, message);
        }
    }

    /// Region entry blocks take parameters only where the region's role allows them.
    fn check_entry_params(&self, region: Region) {
        let Some(entry) = self.index.entry_block(region) else {
            return;
        };
        let params = self.dfg.block_params(entry);
        // Only the function body has parameters to match; every nested region may
        // have none.
        if params.is_empty() && self.index.region_parent[region].is_some() {
            return;
        }
        match self.region_role(region) {
            RegionRole::FunctionBody => {
                let Some((sig_params, _, _)) = self.signature() else {
                    return;
                };
                let types: Vec<_> = params
                    .iter()
                    .map(|&p| self.dfg.values.get(p).map(|d| d.ty))
                    .collect();
                let matches = types.len() == sig_params.len()
                    && types.iter().zip(&sig_params).all(|(t, s)| *t == Some(*s));
                if !matches {
                    self.error(Diagnostic::error(
                        self.func.loc,
                        format!(
                            "the entry block of @{} has {} parameter(s) that do not match the signature {}",
                            self.func_name(),
                            params.len(),
                            self.type_str(self.func.sig)
                        ),
                    ));
                }
            }
            // Checked with the op's operand types.
            RegionRole::ArrayElement => {}
            RegionRole::TryHandler(_) => {
                let eh_token = self.ctx.types.common().eh_token;
                let ok = match params {
                    [] => true,
                    [p] => self.dfg.values.get(*p).is_some_and(|d| d.ty == eh_token),
                    _ => false,
                };
                if !ok {
                    self.error(Diagnostic::error(
                        self.block_loc(entry),
                        "a 'cir.try' handler region takes no parameter or one !cir.eh_token",
                    ));
                }
            }
            _ => {
                if !params.is_empty() {
                    let parent = self.index.region_parent[region].expand().expect("nested");
                    self.error(Diagnostic::error(
                        self.block_loc(entry),
                        format!(
                            "the entry block of region #{} of '{}' cannot have parameters",
                            self.index.region_number[region],
                            self.op_name(parent)
                        ),
                    ));
                }
            }
        }
    }

    /// Exactly one terminator per block, at its end.
    pub(crate) fn check_block_terminators(&self) {
        for &block in &self.index.blocks {
            let ops = self.index.block_ops(block);
            let Some(&last) = ops.last() else {
                self.error(Diagnostic::error(
                    self.block_loc(block),
                    format!(
                        "{} is empty; a block must end in a terminator",
                        self.index.block_name(block)
                    ),
                ));
                continue;
            };
            for &op in &ops[..ops.len() - 1] {
                if self.dfg.kind(op).is_terminator() {
                    self.op_error(
                        op,
                        format!(
                            "terminator '{}' must be the last op of its block",
                            self.op_name(op)
                        ),
                    );
                }
            }
            if !self.dfg.kind(last).is_terminator() {
                self.op_error(
                    last,
                    format!(
                        "{} does not end in a terminator ('{}' is not one)",
                        self.index.block_name(block),
                        self.op_name(last)
                    ),
                );
            }
        }
    }

    /// A terminator is allowed by the region it ends.
    pub(crate) fn check_op_termination(&self, view: &OpView) {
        if view.info.terminator {
            self.check_region_termination(view);
        }
    }

    fn check_region_termination(&self, view: &OpView) {
        let op = view.op;
        let region = view.region;
        let role = || self.region_role(region);
        match view.kind {
            OpKind::Yield => match role() {
                RegionRole::FunctionBody => {
                    self.op_error(op, "'cir.yield' cannot terminate the function body")
                }
                RegionRole::LoopCondition => self.op_error(
                    op,
                    "a loop condition region must end with 'cir.condition', not 'cir.yield'",
                ),
                _ => self.check_yield_operands(view),
            },
            OpKind::Condition if role() != RegionRole::LoopCondition => {
                self.op_error(
                    op,
                    "'cir.condition' can only terminate the condition region of 'cir.while', 'cir.do' or 'cir.for'",
                );
            }
            OpKind::Break => {
                let ok = self.enclosing_ops(op).any(|p| {
                    matches!(
                        self.dfg.kind(p),
                        OpKind::While | OpKind::DoWhile | OpKind::For | OpKind::Switch
                    )
                });
                if !ok {
                    self.op_error(op, "'cir.break' must be inside a loop or 'cir.switch'");
                }
            }
            OpKind::Continue => {
                let ok = self.enclosing_ops(op).any(|p| {
                    matches!(
                        self.dfg.kind(p),
                        OpKind::While | OpKind::DoWhile | OpKind::For
                    )
                });
                if !ok {
                    self.op_error(op, "'cir.continue' must be inside a loop");
                }
            }
            OpKind::Resume if self.func.phase == Phase::Structured => {
                let ok = self.enclosing_regions(op).any(|r| {
                    matches!(
                        self.region_role(r),
                        RegionRole::TryHandler(HandlerKey::Unwind)
                            | RegionRole::CleanupRegion(CleanupKind::Eh)
                    )
                });
                if !ok {
                    self.op_error(
                        op,
                        "'cir.resume' must be inside a 'cir.try' unwind handler or the cleanup region of a 'cleanup eh' scope",
                    );
                }
            }
            OpKind::Return
                if self.func.phase != Phase::Structured && role() != RegionRole::FunctionBody =>
            {
                let name = view.name();
                self.op_error(op, format!("'{name}' must be in the function body"));
            }
            _ => {}
        }
    }

    /// `cir.yield` operands match the results of the op owning its region.
    fn check_yield_operands(&self, view: &OpView) {
        let op = view.op;
        let Some(parent) = self.index.region_parent[view.region].expand() else {
            return;
        };
        let operands = view.operands;
        let results = self.dfg.results(parent);
        if operands.len() != results.len() {
            self.op_error(
                op,
                format!(
                    "'cir.yield' passes {} value(s), but '{}' has {} result(s)",
                    operands.len(),
                    self.op_name(parent),
                    results.len()
                ),
            );
            return;
        }
        for (i, (&a, &b)) in operands.iter().zip(results).enumerate() {
            if let (Some(a), Some(b)) = (self.value_type(a), self.value_type(b))
                && a != b
            {
                self.op_error(
                    op,
                    format!(
                        "'cir.yield' value #{i} has type {}, but result #{i} of '{}' has type {}",
                        self.type_str(a),
                        self.op_name(parent),
                        self.type_str(b)
                    ),
                );
            }
        }
    }

    /// Successor counts per kind; targets are blocks of the same region, never its entry.
    pub(crate) fn check_op_successors(&self, view: &OpView) {
        let op = view.op;
        let kind = view.kind;
        let succs = view.successors;
        let n = succs.len();
        if !view.info.terminator {
            if n != 0 {
                self.op_error(op, format!("'{}' cannot have successors", kind.name()));
            }
            return;
        }
        let name = kind.name();
        let fixed = matches!(view.info.successors, Count::Exactly(count) if count as usize == n);
        // Most terminators have a fixed successor count: nothing to resolve.
        let count = if fixed {
            Ok(CountRange::exactly(n))
        } else {
            kind.successor_count(self.func.phase, &self.dfg.extras)
        };
        match count {
            Err(MissingList { list, .. }) => {
                self.op_error(op, format!("'{name}' has no {list} list"));
            }
            Ok(range) if !range.contains(n) => {
                let message = if range.max == 0 {
                    format!("'{name}' cannot have successors")
                } else if range.max == usize::MAX {
                    format!(
                        "'{name}' must have at least {} successor(s), but has {n}",
                        range.min
                    )
                } else if range.min == range.max {
                    format!("'{name}' must have {} successor(s), but has {n}", range.min)
                } else {
                    format!(
                        "'{name}' must have {} to {} successors, but has {n}",
                        range.min, range.max
                    )
                };
                self.op_error(op, message);
            }
            Ok(_) => {}
        }
        if succs.is_empty() {
            return;
        }
        let region = view.region;
        let entry = self.index.entry_block(region);
        for (i, &s) in succs.iter().enumerate() {
            let Some(data) = self.dfg.successors.get(s) else {
                self.op_error(op, format!("successor #{i} of '{name}' does not exist"));
                continue;
            };
            let target = data.block;
            let Some(target_region) = self.index.block_region[target].expand() else {
                self.op_error(
                    op,
                    format!("successor #{i} of '{name}' is not a block of this function"),
                );
                continue;
            };
            if target_region != region {
                self.error_with_note(
                    view.loc,
                    format!(
                        "successor {} of '{name}' is not in the same region",
                        self.index.block_name(target)
                    ),
                    self.block_loc(target),
                    "block defined here",
                );
                continue;
            }
            if entry == Some(target) {
                self.op_error(
                    op,
                    format!(
                        "'{name}' cannot branch to {}, the entry block of its region",
                        self.index.block_name(target)
                    ),
                );
            }
        }
    }

    /// Each op is allowed in the function's phase. In a lowered function only ops of the
    /// body region are checked: anything nested is inside an op already reported.
    pub(crate) fn check_op_phase(&self, view: &OpView) {
        let phase = self.func.phase;
        if phase != Phase::Structured && self.index.region_depth[view.region] != 0 {
            return;
        }
        if !view.info.phases.contains(phase) {
            self.op_error(
                view.op,
                format!(
                    "'{}' is not allowed in a{} {} function",
                    view.name(),
                    if matches!(phase, Phase::Itanium | Phase::Msvc) {
                        "n"
                    } else {
                        ""
                    },
                    phase.name()
                ),
            );
        }
    }

    /// `cir.label` names are unique and first in their block; `cir.goto` targets exist;
    /// `cir.case` sits in a `cir.switch` and has the values its kind needs.
    pub(crate) fn check_op_labels(&self, view: &OpView, labels: &mut Labels) {
        let op = view.op;
        match view.kind {
            OpKind::Label { name } => {
                if let Some(&first) = labels.get(&name) {
                    self.error_with_note(
                        view.loc,
                        format!("label \"{}\" is defined twice", self.sym_str(name)),
                        self.dfg.loc(first),
                        "first defined here",
                    );
                } else {
                    labels.insert(name, op);
                }
                if view.pos != 0 {
                    self.op_error(op, "'cir.label' must be the first op of its block");
                }
            }
            OpKind::Case { kind, values } => {
                let in_switch = self.index.region_parent[view.region]
                    .expand()
                    .is_some_and(|p| matches!(self.dfg.kind(p), OpKind::Switch));
                if !in_switch {
                    self.op_error(op, "'cir.case' must be directly inside a 'cir.switch'");
                }
                let count = match self.dfg.extras.get(values) {
                    Some(ExtraData::CaseValues(v)) => v.len(),
                    _ => 0,
                };
                let ok = match kind {
                    CaseKind::Equal => count == 1,
                    CaseKind::AnyOf => count >= 1,
                    CaseKind::Range => count == 2,
                    CaseKind::Default => count == 0,
                };
                if !ok {
                    let need = match kind {
                        CaseKind::Equal => "exactly one value",
                        CaseKind::AnyOf => "at least one value",
                        CaseKind::Range => "two values",
                        CaseKind::Default => "no values",
                    };
                    self.op_error(
                        op,
                        format!("'cir.case ({})' takes {need}, but has {count}", kind.name()),
                    );
                }
            }
            _ => {}
        }
    }

    /// Every `cir.goto` of `gotos` names a label of `labels` (all labels of the function),
    /// and never jumps into a region of a `cir.cleanup.scope` or `cir.try` it is not
    /// already in (C++ forbids jumping past the construction of an object with a
    /// destructor or into a try block or handler; `flatten-cfg` cannot lower it).
    pub(crate) fn check_gotos(&self, gotos: &[Op], labels: &Labels) {
        for &op in gotos {
            let OpKind::Goto { label } = *self.dfg.kind(op) else {
                continue;
            };
            let Some(&target) = labels.get(&label) else {
                self.op_error(
                    op,
                    format!(
                        "'cir.goto' names label \"{}\", which is not defined in this function",
                        self.sym_str(label)
                    ),
                );
                continue;
            };
            let here: Vec<Region> = self.enclosing_regions(op).collect();
            let protected = self.enclosing_regions(target).any(|region| {
                self.index.region_parent[region].expand().is_some_and(|o| {
                    matches!(
                        self.dfg.kind(o),
                        OpKind::CleanupScope { .. } | OpKind::Try { .. }
                    )
                }) && !here.contains(&region)
            });
            if protected {
                self.op_error(
                    op,
                    format!(
                        "'cir.goto' jumps into a cleanup scope, try body or handler (label \"{}\")",
                        self.sym_str(label)
                    ),
                );
            }
        }
    }

    /// The type of a value, if the value exists.
    pub(crate) fn value_type(&self, v: crate::entities::Value) -> Option<crate::entities::Type> {
        self.dfg.values.get(v).map(|d| d.ty)
    }

    /// Whether a type is one of the three EH tokens.
    pub(crate) fn is_token(&self, t: crate::entities::Type) -> bool {
        // Types are interned, so the three token types are exactly these.
        let common = self.ctx.types.common();
        t == common.eh_token || t == common.cleanup_token || t == common.catch_token
    }
}
