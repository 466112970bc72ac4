//! Loops: `cir.while`, `cir.do` and `cir.for` built region by region through a
//! [`LoopBuilder`], with the body an alloca scope and `break`/`continue` targets.

use crate::error::BuilderErrorKind;
use crate::function::{CoreOp, FrameKind, FunctionBuilder};
use crate::handles::{Op, Value};

/// Which loop op a [`LoopBuilder`] builds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum LoopKind {
    /// `cir.while { cond } do { body }`
    While,
    /// `cir.do { body } while { cond }`
    DoWhile,
    /// `cir.for : cond { } body { } step { }`
    For,
}

/// A loop under construction, from [`FunctionBuilder::begin_while`],
/// [`FunctionBuilder::begin_do_while`] or [`FunctionBuilder::begin_for`]. Its methods
/// move the insertion point through the loop's regions in source order; each region is
/// closed by the next call (the condition region with `cir.condition`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LoopBuilder {
    pub(crate) op: Op,
    pub(crate) kind: LoopKind,
}

impl LoopBuilder {
    /// The loop op.
    pub fn op(self) -> Op {
        self.op
    }

    /// Which loop this is.
    pub fn kind(self) -> LoopKind {
        self.kind
    }

    pub(crate) fn region_index(self, part: LoopPart) -> usize {
        match (self.kind, part) {
            (LoopKind::While | LoopKind::For, LoopPart::Condition) => 0,
            (LoopKind::While | LoopKind::For, LoopPart::Body) => 1,
            (LoopKind::DoWhile, LoopPart::Body) => 0,
            (LoopKind::DoWhile, LoopPart::Condition) => 1,
            (_, LoopPart::Step) => 2,
        }
    }

    /// Closes the condition region with `cir.condition(%cond)` (`cond` must be a
    /// `!cir.bool`). For `while` and `for` the insertion point moves to the body; for
    /// `do`/`while` the loop is finished.
    pub fn condition(self, b: &mut FunctionBuilder<'_>, cond: Value) {
        if !b.in_loop_part(self, LoopPart::Condition, "condition") {
            return;
        }
        b.emit_condition(cond);
        b.exit_region();
        match self.kind {
            LoopKind::While | LoopKind::For => b.enter_loop_part(self, LoopPart::Body),
            LoopKind::DoWhile => {}
        }
    }

    /// Ends the body: for `do`/`while` the insertion point moves to the condition, for
    /// `for` to the step region, for `while` the loop is finished.
    pub fn end_body(self, b: &mut FunctionBuilder<'_>) {
        if !b.in_loop_part(self, LoopPart::Body, "end_body") {
            return;
        }
        b.exit_region();
        match self.kind {
            LoopKind::DoWhile => b.enter_loop_part(self, LoopPart::Condition),
            LoopKind::For => b.enter_loop_part(self, LoopPart::Step),
            LoopKind::While => {}
        }
    }

    /// Ends the step region of a `for` loop (the loop is finished).
    pub fn end_step(self, b: &mut FunctionBuilder<'_>) {
        if b.in_loop_part(self, LoopPart::Step, "end_step") {
            b.exit_region();
        }
    }
}

/// A region of a loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum LoopPart {
    Condition,
    Body,
    Step,
}

impl FunctionBuilder<'_> {
    /// Starts `cir.while { cond } do { body }`; the insertion point is the condition
    /// region. Continue with [`LoopBuilder::condition`] and [`LoopBuilder::end_body`].
    ///
    /// ```
    /// use ehir_core::{BinaryOp, CmpPredicate, ModuleCtx};
    /// use ehir_builder::FunctionBuilder;
    ///
    /// // int count(int n) { int i = 0; while (i < n) { if (i == 7) break; i = i + 1; } return i; }
    /// let mut ctx = ModuleCtx::default();
    /// let s32 = ctx.types.common().s32;
    /// let sig = ctx.types.func(vec![s32], Some(s32), false);
    /// let mut b = FunctionBuilder::new(&mut ctx, "count", sig, &[s32]);
    /// let n = b.params()[0];
    /// let i = b.alloca(s32, "i", true, 4);
    /// let zero = b.const_int(s32, 0);
    /// b.store(zero, i, 4);
    /// let lp = b.begin_while();
    /// let iv = b.load(i, 4);
    /// let more = b.cmp(CmpPredicate::Lt, iv, n);
    /// lp.condition(&mut b, more);
    /// let iv = b.load(i, 4);
    /// let seven = b.const_int(s32, 7);
    /// let hit = b.cmp(CmpPredicate::Eq, iv, seven);
    /// b.begin_if(hit, false);
    /// b.emit_break();
    /// b.end_if();
    /// let one = b.const_int(s32, 1);
    /// let next = b.binop(BinaryOp::Add, iv, one);
    /// b.store(next, i, 4);
    /// lp.end_body(&mut b);
    /// let result = b.load(i, 4);
    /// b.emit_return(Some(result));
    /// let func = b.finish().unwrap();
    /// let text = ehir_core::printer::function_to_string(&ctx, &func);
    /// assert!(text.contains("cir.while {"), "{text}");
    /// assert!(text.contains("cir.break"), "{text}");
    /// ```
    pub fn begin_while(&mut self) -> LoopBuilder {
        let (op, _, _) = self.cursor().while_loop();
        self.begin_loop(op, LoopKind::While)
    }

    /// Starts `cir.do { body } while { cond }`; the insertion point is the body. Continue
    /// with [`LoopBuilder::end_body`] and [`LoopBuilder::condition`].
    pub fn begin_do_while(&mut self) -> LoopBuilder {
        let (op, _, _) = self.cursor().do_while();
        self.begin_loop(op, LoopKind::DoWhile)
    }

    /// Starts `cir.for : cond {} body {} step {}` (initialization goes before, in a
    /// [`FunctionBuilder::enter_scope`] if it declares variables); the insertion point is
    /// the condition. Continue with [`LoopBuilder::condition`], [`LoopBuilder::end_body`]
    /// and [`LoopBuilder::end_step`].
    pub fn begin_for(&mut self) -> LoopBuilder {
        let (op, _) = self.cursor().for_loop();
        self.begin_loop(op, LoopKind::For)
    }

    pub(crate) fn begin_loop(&mut self, op: CoreOp, kind: LoopKind) -> LoopBuilder {
        let lp = LoopBuilder {
            op: self.op_handle(op),
            kind,
        };
        let first = match kind {
            LoopKind::While | LoopKind::For => LoopPart::Condition,
            LoopKind::DoWhile => LoopPart::Body,
        };
        self.enter_loop_part(lp, first);
        lp
    }

    pub(crate) fn enter_loop_part(&mut self, lp: LoopBuilder, part: LoopPart) {
        if let Some(op) = lp.op.raw() {
            // The body is an alloca scope: a variable declared in it is fresh per
            // iteration.
            self.enter_core_region(op, lp.region_index(part), part == LoopPart::Body);
        }
    }

    /// Whether the insertion point is in `part` of the loop `lp` (an error otherwise;
    /// cleanups pushed inside the part are popped first).
    pub(crate) fn in_loop_part(&mut self, lp: LoopBuilder, part: LoopPart, what: &str) -> bool {
        let Some(op) = self.op(lp.op, what) else {
            return false;
        };
        let index = lp.region_index(part);
        let in_part = self.state.frames.iter().rev().find_map(|f| match f.kind {
            FrameKind::Cleanup { .. } => None,
            FrameKind::Region { op: o, index: i } => Some(o == op && i == index),
            _ => Some(false),
        });
        if in_part != Some(true) {
            self.fail(
                BuilderErrorKind::Unbalanced,
                format!("loop {what}: the insertion point is not in the loop's {part:?} region (close inner scopes first)"),
            );
            return false;
        }
        true
    }
}
