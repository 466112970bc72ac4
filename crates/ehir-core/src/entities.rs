//! IR entity references: `u32` newtypes that index the primary maps of a function or module.

use cranelift_entity::entity_impl;

/// An SSA value: an op result or a block parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An operation inside a function body.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op(u32);
entity_impl!(Op, "op");

/// A basic block; blocks live in regions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A region: an ordered list of blocks owned by an op (or the function body).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "region");

/// One successor edge of a terminator: a target block and the arguments passed to it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Successor(u32);
entity_impl!(Successor, "succ");

/// Out-of-line op payload (handler lists, switch cases, landing-pad clauses).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Extra(u32);
entity_impl!(Extra, "extra");

/// An interned type, owned by the module's [`crate::TypeStore`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type(u32);
entity_impl!(Type, "type");

/// An interned attribute, owned by the module's [`crate::AttrStore`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Attr(u32);
entity_impl!(Attr, "attr");

/// An interned string: symbol names, alloca names, labels.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(u32);
entity_impl!(Symbol, "sym");

/// A function of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "func");

/// A global variable of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "global");

/// A source location: a byte offset into the text the IR was parsed from.
///
/// Ops built by passes carry the location of the op they were derived from, or
/// [`Loc::NONE`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Loc(pub u32);

impl Loc {
    /// The location of an op that has no source text.
    pub const NONE: Loc = Loc(u32::MAX);

    /// The location at byte `offset` (offsets past 4 GiB share the last one).
    pub fn at(offset: usize) -> Loc {
        Loc(u32::try_from(offset)
            .unwrap_or(u32::MAX - 1)
            .min(u32::MAX - 1))
    }

    /// The byte offset, unless this is [`Loc::NONE`].
    pub fn offset(self) -> Option<usize> {
        (self != Loc::NONE).then_some(self.0 as usize)
    }
}

impl Default for Loc {
    fn default() -> Self {
        Loc::NONE
    }
}
