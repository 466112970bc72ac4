//! Structured branches: `cir.break`, `cir.continue`, `cir.return`, `cir.goto` and labels,
//! each recorded with the cleanup scopes it leaves.

use crate::error::BuilderErrorKind;
use crate::function::{BranchExit, BranchKind, CoreOp, FrameKind, FunctionBuilder};
use crate::handles::Value;
use ehir_core::{CursorPosition, FuncCursor, Function, OpKind};

impl FunctionBuilder<'_> {
    pub(crate) fn cleanups_until(
        &self,
        stop: impl Fn(&FrameKind, &Function) -> bool,
    ) -> Option<Vec<CoreOp>> {
        let mut out = Vec::new();
        for f in self.state.frames.iter().rev() {
            if stop(&f.kind, &self.state.func) {
                return Some(out);
            }
            if let FrameKind::Cleanup { op } = f.kind {
                out.push(op);
            }
        }
        None
    }

    /// The cleanups of every enclosing frame, innermost first.
    pub(crate) fn all_cleanups(&self) -> Vec<CoreOp> {
        self.state
            .frames
            .iter()
            .rev()
            .filter_map(|f| match f.kind {
                FrameKind::Cleanup { op } => Some(op),
                _ => None,
            })
            .collect()
    }

    /// Notes a branch op that leaves the scopes of `cleanups` (innermost first).
    pub(crate) fn note_exit(&mut self, op: CoreOp, branch: BranchKind, cleanups: Vec<CoreOp>) {
        let exit = BranchExit {
            op: self.op_handle(op),
            kind: branch,
            cleanups: cleanups.into_iter().map(|c| self.op_handle(c)).collect(),
        };
        self.state.exits.push(exit);
    }

    pub(crate) fn is_loop_body(kind: &FrameKind, func: &Function) -> bool {
        match *kind {
            FrameKind::Region { op, index } => matches!(
                (func.dfg.kind(op), index),
                (OpKind::While, 1) | (OpKind::DoWhile, 0) | (OpKind::For, 1)
            ),
            _ => false,
        }
    }

    /// A `cir.break` or `cir.continue` (`branch`, made by `build`) out to the innermost
    /// frame `target` accepts, noting the cleanups it leaves; `misplaced` is the error
    /// when no frame accepts it.
    fn emit_jump_out(
        &mut self,
        branch: BranchKind,
        target: impl Fn(&FrameKind, &Function) -> bool,
        misplaced: &str,
        build: impl FnOnce(&mut FuncCursor<'_>) -> CoreOp,
    ) {
        let Some(cleanups) = self.cleanups_until(target) else {
            self.fail(BuilderErrorKind::Misplaced, misplaced);
            return;
        };
        let op = build(&mut self.cursor());
        self.note_exit(op, branch, cleanups);
    }

    /// `cir.break`: leaves the innermost loop or `cir.switch`.
    pub fn emit_break(&mut self) {
        let target = |k: &FrameKind, f: &Function| {
            Self::is_loop_body(k, f)
                || matches!(*k, FrameKind::Region { op, .. } if matches!(f.dfg.kind(op), OpKind::Case { .. }))
        };
        self.emit_jump_out(
            BranchKind::Break,
            target,
            "emit_break: break outside a loop body or switch",
            |cursor| cursor.break_op(),
        );
    }

    /// `cir.continue`: next iteration of the innermost loop.
    pub fn emit_continue(&mut self) {
        self.emit_jump_out(
            BranchKind::Continue,
            Self::is_loop_body,
            "emit_continue: continue outside a loop body",
            |cursor| cursor.continue_op(),
        );
    }

    /// `cir.return [%v]`: runs every enclosing cleanup on the way out. `value` must be
    /// given exactly when the function returns a value, and be of its result type.
    pub fn emit_return(&mut self, value: Option<Value>) {
        let value = match value {
            Some(v) => match self.value(v, "emit_return") {
                Some(core) => Some(core),
                None => return,
            },
            None => None,
        };
        match (self.state.ret, value) {
            (None, Some(_)) => {
                self.fail(
                    BuilderErrorKind::TypeMismatch,
                    "emit_return: a value returned from a function without a result",
                );
                return;
            }
            (Some(ret), None) => {
                let ret = self.type_name(ret);
                self.fail(
                    BuilderErrorKind::TypeMismatch,
                    format!("emit_return: no value returned from a function returning {ret}"),
                );
                return;
            }
            (Some(ret), Some(v)) if self.core_type(v) != ret => {
                let expected = self.type_name(ret);
                self.mismatch("emit_return", &expected, self.core_type(v));
                return;
            }
            _ => {}
        }
        let cleanups = self.all_cleanups();
        let op = self.cursor().ret(value);
        self.note_exit(op, BranchKind::Return, cleanups);
    }

    /// `cir.goto "label"`.
    pub fn emit_goto(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let cleanups = self.all_cleanups();
        let op = self.cursor().goto(label);
        self.note_exit(op, BranchKind::Goto(label), cleanups);
    }

    /// Starts a new block beginning with `cir.label "label"`; the current block falls
    /// through to it with `cir.br` unless it already ends in a terminator.
    pub fn emit_label(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let Some(region) = self.state.func.layout.block_region(self.state.block) else {
            self.fail(
                BuilderErrorKind::InvalidEntity,
                "emit_label: no current region",
            );
            return;
        };
        let terminated = self.is_terminated();
        let current = self.state.block;
        let mut cursor = self.cursor_at(CursorPosition::End(current));
        let block = cursor.append_block(region);
        if !terminated {
            cursor.br(block, &[]);
        }
        cursor.goto_end(block);
        cursor.label(label);
        self.state.block = block;
    }

    /// `cir.unreachable`.
    pub fn emit_unreachable(&mut self) {
        self.cursor().unreachable();
    }
}
