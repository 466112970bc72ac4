//! A cursor for building and editing a function: it points before an op or at the end of
//! a block, and ops built through it are inserted there.

use crate::entities::{Block, Loc, Op, Region, Type, Value};
use crate::function::Function;
use crate::ops::OpKind;

/// Where the cursor inserts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CursorPosition {
    Nowhere,
    /// Before this op.
    Before(Op),
    /// At the end of this block.
    End(Block),
}

/// Builds and edits a function.
pub struct FuncCursor<'f> {
    pub func: &'f mut Function,
    pos: CursorPosition,
    loc: Loc,
}

impl<'f> FuncCursor<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        FuncCursor {
            func,
            pos: CursorPosition::Nowhere,
            loc: Loc::NONE,
        }
    }

    /// Ops built from now on get this location.
    pub fn set_loc(&mut self, loc: Loc) {
        self.loc = loc;
    }

    pub fn loc(&self) -> Loc {
        self.loc
    }

    pub fn position(&self) -> CursorPosition {
        self.pos
    }

    pub fn set_position(&mut self, pos: CursorPosition) {
        self.pos = pos;
    }

    /// Insert at the end of `block` from now on.
    pub fn goto_end(&mut self, block: Block) {
        self.pos = CursorPosition::End(block);
    }

    /// Insert before `op` from now on.
    pub fn goto_before(&mut self, op: Op) {
        self.pos = CursorPosition::Before(op);
    }

    /// Insert right after `op` from now on.
    pub fn goto_after(&mut self, op: Op) {
        self.pos = match self.func.layout.next_op(op) {
            Some(n) => CursorPosition::Before(n),
            None => CursorPosition::End(
                self.func
                    .layout
                    .op_block(op)
                    .expect("cursor moved after an unplaced op"),
            ),
        };
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            CursorPosition::Nowhere => None,
            CursorPosition::Before(op) => self.func.layout.op_block(op),
            CursorPosition::End(b) => Some(b),
        }
    }

    /// Places an existing (unplaced) op at the cursor.
    pub fn insert(&mut self, op: Op) {
        match self.pos {
            CursorPosition::Nowhere => panic!("cursor has no position"),
            CursorPosition::Before(before) => self.func.layout.insert_op_before(op, before),
            CursorPosition::End(b) => self.func.layout.append_op(op, b),
        }
    }

    /// Makes an op and places it at the cursor.
    pub fn build(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        successors: &[(Block, &[Value])],
        num_regions: usize,
    ) -> Op {
        let op = self.func.dfg.make_op(
            kind,
            operands,
            result_types,
            successors,
            num_regions,
            self.loc,
        );
        self.insert(op);
        op
    }

    /// Builds an op with exactly one result and returns the result.
    pub fn build_value(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.build(kind, operands, &[ty], &[], 0);
        self.func.dfg.result(op)
    }

    /// Creates a block at the end of `region` (no parameters).
    pub fn append_block(&mut self, region: Region) -> Block {
        let b = self.func.dfg.make_block();
        self.func.layout.append_block(region, b);
        b
    }

    /// Creates an empty region-entry block for each region of `op` and returns them.
    pub fn entry_blocks(&mut self, op: Op) -> Vec<Block> {
        let regions = self.func.dfg.regions(op).to_vec();
        regions.into_iter().map(|r| self.append_block(r)).collect()
    }
}
