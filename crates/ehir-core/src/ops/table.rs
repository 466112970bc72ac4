//! The op table: one declarative row per op stating every fact about its shape (name and
//! aliases, phases, terminator, operand/result/successor/region counts, token slots,
//! may-throw). [`OpCode`], [`OpKind::code`], [`OpKind::name`], [`OpCode::from_name`],
//! [`OpKind::is_terminator`], [`OpKind::phases`], [`OpKind::may_throw`] and the count
//! queries used by the verifier, the interpreter and the emitter are all derived from it.
//!
//! Per-op syntax (printer, reader) and per-op semantics (type rules, interpreter,
//! lowerings, emitter) stay with their owners; only shape facts live here.

use super::{ExtraData, OpKind, PhaseSet};
use crate::entities::Extra;
use crate::function::Phase;
use cranelift_entity::PrimaryMap;

/// How many operands, results, successors or regions an op has, as its row states it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Count {
    /// Exactly this many.
    Exactly(u32),
    /// Between the two bounds, both included.
    Between(u32, u32),
    /// At least this many.
    AtLeast(u32),
    /// `base` plus one per entry of the op's list payload (the cases of
    /// `cir.switch.flat`, the handlers of `cir.try`, the keys of `cir.eh.dispatch`);
    /// `list` names the list in messages ("case", "key", ...).
    PerEntry {
        /// The count when the list is empty.
        base: u32,
        /// What one entry of the list is called.
        list: &'static str,
    },
    /// Fixed by a flag of the payload or by the phase: indirect calls take the callee as
    /// an extra operand, `cir.catchpad` its slot, `cir.catchswitch` an unwind destination
    /// unless it unwinds to the caller, and a `cir.throw` has an unwind destination only
    /// after flattening.
    Payload,
}

/// A resolved count: `min..=max`; `max` is `usize::MAX` when there is no upper bound.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CountRange {
    /// The least count allowed.
    pub min: usize,
    /// The greatest count allowed (`usize::MAX`: unbounded).
    pub max: usize,
}

impl CountRange {
    /// Exactly `count`.
    pub const fn exactly(count: usize) -> CountRange {
        CountRange {
            min: count,
            max: count,
        }
    }

    /// `count` or more.
    pub const fn at_least(count: usize) -> CountRange {
        CountRange {
            min: count,
            max: usize::MAX,
        }
    }

    /// Whether `count` is allowed.
    pub fn contains(self, count: usize) -> bool {
        self.min <= count && count <= self.max
    }

    /// The range for messages: `1`, `at least 1`, `0 to 1`.
    pub fn describe(self) -> String {
        if self.min == self.max {
            format!("{}", self.min)
        } else if self.max == usize::MAX {
            format!("at least {}", self.min)
        } else {
            format!("{} to {}", self.min, self.max)
        }
    }
}

/// The list payload an op's count depends on is missing or of the wrong kind.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MissingList {
    /// What one entry of the list is called ("case", "key", ...).
    pub list: &'static str,
    /// The count the op would have with an empty list.
    pub base: usize,
}

/// The token type an operand or result slot carries.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TokenType {
    /// `!cir.eh_token`.
    Eh,
    /// `!cir.catch_token`.
    Catch,
    /// `!cir.cleanup_token`.
    Cleanup,
    /// The parent of an MSVC pad: a `!cir.catch_token` or a `!cir.cleanup_token`.
    CatchOrCleanup,
}

/// An operand or result slot that carries a token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TokenSlot {
    /// The operand or result number.
    pub index: u32,
    /// The token type the slot takes.
    pub token: TokenType,
    /// What the slot is, for messages ("the token", "the result", ...).
    pub role: &'static str,
}

/// Whether executing an op may raise an exception in its function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MayThrow {
    /// Never.
    Never,
    /// Always (throws, resumes).
    Always,
    /// Unless the call is marked `nothrow`.
    UnlessNothrow,
}

/// Every fact about the shape of one op: one row of the table.
#[derive(Copy, Clone, Debug)]
pub struct OpInfo {
    /// The op.
    pub code: OpCode,
    /// The name as printed (`cir.call`).
    pub name: &'static str,
    /// Other names the reader accepts.
    pub aliases: &'static [&'static str],
    /// Where the op may appear.
    pub phases: PhaseSet,
    /// Whether the op ends its block.
    pub terminator: bool,
    /// Operand count.
    pub operands: Count,
    /// Result count.
    pub results: Count,
    /// Successor count.
    pub successors: Count,
    /// Region count.
    pub regions: Count,
    /// Operand slots that carry tokens; no other operand may be a token.
    pub operand_tokens: &'static [TokenSlot],
    /// Result slots that carry tokens; no other result may be a token.
    pub result_tokens: &'static [TokenSlot],
    /// Whether the op may throw.
    pub may_throw: MayThrow,
}

/// A token slot, for the table.
const fn token(index: u32, token: TokenType, role: &'static str) -> TokenSlot {
    TokenSlot { index, token, role }
}

/// Defines [`OpCode`], the table and the name lookups from one row per op.
macro_rules! op_table {
    (@terminator terminator) => { true };
    (@terminator op) => { false };
    ($(
        $code:ident $({$brace:tt})? $(($paren:tt))?
            => $name:literal $(| $alias:literal)*,
            $phases:ident, $terminator:ident,
            operands $operands:expr, results $results:expr,
            successors $successors:expr, regions $regions:expr,
            tokens [$($operand_token:expr),*] -> [$($result_token:expr),*],
            $may_throw:ident;
    )*) => {
        /// What an op is, without its payload: one value per [`OpKind`] variant.
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(u8)]
        pub enum OpCode {
            $(
                #[doc = concat!("`", $name, "`")]
                $code,
            )*
        }

        impl OpCode {
            /// Every op, in table order.
            pub const ALL: &'static [OpCode] = &[$(OpCode::$code),*];

            /// The op named `name` (its printed name or an alias).
            pub fn from_name(name: &str) -> Option<OpCode> {
                match name {
                    $($name $(| $alias)* => Some(OpCode::$code),)*
                    _ => None,
                }
            }
        }

        /// The rows, indexed by `OpCode as usize`.
        static TABLE: &[OpInfo] = &[$(
            OpInfo {
                code: OpCode::$code,
                name: $name,
                aliases: &[$($alias),*],
                phases: PhaseSet::$phases,
                terminator: op_table!(@terminator $terminator),
                operands: $operands,
                results: $results,
                successors: $successors,
                regions: $regions,
                operand_tokens: &[$($operand_token),*],
                result_tokens: &[$($result_token),*],
                may_throw: MayThrow::$may_throw,
            },
        )*];

        impl OpKind {
            /// The op without its payload.
            #[inline]
            pub fn code(&self) -> OpCode {
                match self {
                    $(OpKind::$code $({$brace})? $(($paren))? => OpCode::$code,)*
                }
            }
        }
    };
}

use Count::{AtLeast, Between, Exactly, Payload, PerEntry};
use TokenType::{Catch, CatchOrCleanup, Cleanup, Eh};

// One row per op. Columns: the `OpKind` variant => the name | aliases, phases, whether it
// ends its block, the counts, the token slots of operands -> results, may-throw.
op_table! {
    // ---- common to all phases ----
    Return => "cir.return", All, terminator,
        operands Between(0, 1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Alloca {..} => "cir.alloca", All, op,
        operands Between(0, 1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Load {..} => "cir.load", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Store {..} => "cir.store", All, op,
        operands Exactly(2), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Const {..} => "cir.const", All, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    // Results: as many as the signature returns (checked against it).
    Call {..} => "cir.call", All, op,
        operands Payload, results AtLeast(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], UnlessNothrow;
    Binary(..) => "cir.binop" | "cir.add" | "cir.sub" | "cir.mul" | "cir.div" | "cir.rem"
        | "cir.and" | "cir.or" | "cir.xor" | "cir.shift", All, op,
        operands Exactly(2), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Unary(..) => "cir.unary" | "cir.not", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Cmp(..) => "cir.cmp", All, op,
        operands Exactly(2), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Cast(..) => "cir.cast", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Select => "cir.select", All, op,
        operands Exactly(3), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    PtrStride => "cir.ptr_stride", All, op,
        operands Exactly(2), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    GetMember {..} => "cir.get_member", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    BaseClassAddr {..} => "cir.base_class_addr", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    DerivedClassAddr {..} => "cir.derived_class_addr", All, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    GetGlobal {..} => "cir.get_global", All, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    AllocException {..} => "cir.alloc.exception", All, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    FreeException => "cir.free.exception", All, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    LifetimeStart => "cir.lifetime.start", All, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    LifetimeEnd => "cir.lifetime.end", All, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Throw {..} => "cir.throw", All, terminator,
        operands Between(0, 1), results Exactly(0), successors Payload, regions Exactly(0),
        tokens [] -> [], Always;
    Resume => "cir.resume", All, terminator,
        operands Between(0, 1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [], Always;
    Unreachable => "cir.unreachable", All, terminator,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Br => "cir.br", All, terminator,
        operands Exactly(0), results Exactly(0), successors Exactly(1), regions Exactly(0),
        tokens [] -> [], Never;
    BrCond => "cir.brcond", All, terminator,
        operands Exactly(1), results Exactly(0), successors Exactly(2), regions Exactly(0),
        tokens [] -> [], Never;
    SwitchFlat {..} => "cir.switch.flat", All, terminator,
        operands Exactly(1), results Exactly(0),
        successors PerEntry { base: 1, list: "case" }, regions Exactly(0),
        tokens [] -> [], Never;
    IndirectBr => "cir.indirect_br", All, terminator,
        operands Exactly(1), results Exactly(0), successors AtLeast(0), regions Exactly(0),
        tokens [] -> [], Never;
    BlockAddress {..} => "cir.block_address", All, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;

    // ---- structured ----
    // Results: the values its regions yield.
    Scope => "cir.scope", Structured, op,
        operands Exactly(0), results AtLeast(0), successors Exactly(0), regions Exactly(1),
        tokens [] -> [], Never;
    If => "cir.if", Structured, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Between(1, 2),
        tokens [] -> [], Never;
    While => "cir.while", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(2),
        tokens [] -> [], Never;
    DoWhile => "cir.do", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(2),
        tokens [] -> [], Never;
    For => "cir.for", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(3),
        tokens [] -> [], Never;
    Condition => "cir.condition", Structured, terminator,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    // Operands: as many as the parent op has results (checked against it).
    Yield => "cir.yield", Structured, terminator,
        operands AtLeast(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Break => "cir.break", Structured, terminator,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Continue => "cir.continue", Structured, terminator,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Goto {..} => "cir.goto", Structured, terminator,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Label {..} => "cir.label", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    Switch => "cir.switch", Structured, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(1),
        tokens [] -> [], Never;
    Case {..} => "cir.case", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(1),
        tokens [] -> [], Never;
    Ternary => "cir.ternary", Structured, op,
        operands Exactly(1), results Between(0, 1), successors Exactly(0), regions Exactly(2),
        tokens [] -> [], Never;
    CleanupScope {..} => "cir.cleanup.scope", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0), regions Exactly(2),
        tokens [] -> [], Never;
    Try {..} => "cir.try", Structured, op,
        operands Exactly(0), results Exactly(0), successors Exactly(0),
        regions PerEntry { base: 1, list: "handler" },
        tokens [] -> [], Never;
    CatchParam => "cir.catch_param", Structured, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    ConstructCatchParam {..} => "cir.construct_catch_param", StructuredOrFlat, op,
        operands Exactly(2), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [], Never;
    InitCatchParam {..} => "cir.init_catch_param", StructuredOrFlat, op,
        operands Exactly(2), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    ArrayCtor => "cir.array.ctor", Structured, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Between(1, 2),
        tokens [] -> [], Never;
    ArrayDtor => "cir.array.dtor", Structured, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(1),
        tokens [] -> [], Never;

    // ---- flat (ABI-agnostic) ----
    TryCall {..} => "cir.try_call", Flattened, terminator,
        operands Payload, results AtLeast(0), successors Exactly(2), regions Exactly(0),
        tokens [] -> [], UnlessNothrow;
    TryThrow => "cir.try_throw", Flat, terminator,
        operands Exactly(3), results Exactly(0), successors Exactly(2), regions Exactly(0),
        tokens [] -> [], Always;
    EhInitiate {..} => "cir.eh.initiate", Flat, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [token(0, Eh, "the result")], Never;
    EhDispatch {..} => "cir.eh.dispatch", Flat, terminator,
        operands Exactly(1), results Exactly(0),
        successors PerEntry { base: 0, list: "key" }, regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [], Never;
    BeginCleanup => "cir.begin_cleanup", Flat, op,
        operands Exactly(1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [token(0, Cleanup, "the result")], Never;
    EndCleanup => "cir.end_cleanup", Flat, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Cleanup, "the token")] -> [], Never;
    CopyCatchParam {..} => "cir.copy_catch_param", StructuredOrFlat, op,
        operands Exactly(2), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    BeginCatch => "cir.begin_catch", StructuredOrFlat, op,
        operands Exactly(1), results Between(1, 2), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [token(0, Catch, "result #0")], Never;
    EndCatch => "cir.end_catch", StructuredOrFlat, op,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Catch, "the token")] -> [], Never;
    // How flat code and both ABI forms spell "terminate here".
    EhTerminate => "cir.eh.terminate", Flattened, terminator,
        operands Between(0, 1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [], Never;
    EhUnexpected => "cir.eh.unexpected", Flat, terminator,
        operands Exactly(1), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the token")] -> [], Never;

    // ---- itanium ----
    EhLandingPad {..} => "cir.eh.inflight_exception" | "cir.eh.landingpad", Itanium, op,
        operands Exactly(0), results Exactly(2), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    EhTypeId {..} => "cir.eh.typeid", Itanium, op,
        operands Exactly(0), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;
    ResumeFlat => "cir.resume.flat", Itanium, terminator,
        operands Exactly(2), results Exactly(0), successors Exactly(0), regions Exactly(0),
        tokens [] -> [], Never;

    // ---- msvc ----
    CatchSwitch {..} => "cir.catchswitch" | "cir.eh.catchswitch", Msvc, terminator,
        operands Between(0, 1), results Exactly(1), successors Payload, regions Exactly(0),
        tokens [token(0, CatchOrCleanup, "the parent")] -> [token(0, Eh, "the result")], Never;
    CatchPad {..} => "cir.catchpad", Msvc, op,
        operands Payload, results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [token(0, Eh, "the catchswitch token")] -> [token(0, Catch, "the result")],
        Never;
    CatchRet => "cir.catchret", Msvc, terminator,
        operands Exactly(1), results Exactly(0), successors Exactly(1), regions Exactly(0),
        tokens [token(0, Catch, "the token")] -> [], Never;
    CleanupPad => "cir.cleanuppad", Msvc, op,
        operands Between(0, 1), results Exactly(1), successors Exactly(0), regions Exactly(0),
        tokens [token(0, CatchOrCleanup, "the parent")] -> [token(0, Cleanup, "the result")],
        Never;
    CleanupRet => "cir.cleanupret", Msvc, terminator,
        operands Exactly(1), results Exactly(0), successors Between(0, 1), regions Exactly(0),
        tokens [token(0, Cleanup, "the token")] -> [], Never;
}

impl OpCode {
    /// The op's row of the table.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    /// The op's name as printed.
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

impl OpKind {
    /// The op's row of the table.
    #[inline]
    pub fn info(&self) -> &'static OpInfo {
        self.code().info()
    }

    /// The op's name as printed (`cir.call`, `cir.eh.dispatch`, ...; a binary op is
    /// printed as upstream's op for its operator, `cir.add` or `cir.shift`).
    #[inline]
    pub fn name(&self) -> &'static str {
        match self {
            OpKind::Binary(operator) => operator.op_name(),
            _ => self.info().name,
        }
    }

    /// Whether the op ends its block.
    #[inline]
    pub fn is_terminator(&self) -> bool {
        self.info().terminator
    }

    /// The phases in which the op is allowed.
    #[inline]
    pub fn phases(&self) -> PhaseSet {
        self.info().phases
    }

    /// Whether executing the op may raise an exception in this function.
    pub fn may_throw(&self) -> bool {
        match self.info().may_throw {
            MayThrow::Never => false,
            MayThrow::Always => true,
            MayThrow::UnlessNothrow => match self {
                OpKind::Call { flags, .. } | OpKind::TryCall { flags, .. } => !flags.nothrow,
                _ => true,
            },
        }
    }

    /// How many operands the op takes.
    #[inline]
    pub fn operand_count(&self) -> CountRange {
        self.resolve_fixed(self.info().operands, Phase::Structured)
    }

    /// How many results the op has.
    #[inline]
    pub fn result_count(&self) -> CountRange {
        self.resolve_fixed(self.info().results, Phase::Structured)
    }

    /// How many successors the op has in a function of `phase`; `extras` holds its list
    /// payload.
    pub fn successor_count(
        &self,
        phase: Phase,
        extras: &PrimaryMap<Extra, ExtraData>,
    ) -> Result<CountRange, MissingList> {
        self.resolve(self.info().successors, phase, extras)
    }

    /// How many regions the op has; `extras` holds its list payload.
    pub fn region_count(
        &self,
        extras: &PrimaryMap<Extra, ExtraData>,
    ) -> Result<CountRange, MissingList> {
        self.resolve(self.info().regions, Phase::Structured, extras)
    }

    /// The operand slot `index` carries a token, and which.
    pub fn operand_token(&self, index: usize) -> Option<&'static TokenSlot> {
        let slots = self.info().operand_tokens;
        slots.iter().find(|slot| slot.index as usize == index)
    }

    /// The result slot `index` carries a token, and which.
    pub fn result_token(&self, index: usize) -> Option<&'static TokenSlot> {
        let slots = self.info().result_tokens;
        slots.iter().find(|slot| slot.index as usize == index)
    }

    /// A count that depends on a list payload, given the payloads.
    fn resolve(
        &self,
        count: Count,
        phase: Phase,
        extras: &PrimaryMap<Extra, ExtraData>,
    ) -> Result<CountRange, MissingList> {
        let PerEntry { base, list } = count else {
            return Ok(self.resolve_fixed(count, phase));
        };
        let entries = match (*self, self.list_payload().and_then(|e| extras.get(e))) {
            (OpKind::SwitchFlat { .. }, Some(ExtraData::Cases(cases))) => Some(cases.len()),
            (
                OpKind::Try { .. } | OpKind::EhDispatch { .. },
                Some(ExtraData::Handlers(handlers)),
            ) => Some(handlers.len()),
            _ => None,
        };
        match entries {
            Some(entries) => Ok(CountRange::exactly(base as usize + entries)),
            None => Err(MissingList {
                list,
                base: base as usize,
            }),
        }
    }

    /// The list payload a [`Count::PerEntry`] counts.
    fn list_payload(&self) -> Option<Extra> {
        match *self {
            OpKind::SwitchFlat { cases } => Some(cases),
            OpKind::Try { handlers } => Some(handlers),
            OpKind::EhDispatch { keys } => Some(keys),
            _ => None,
        }
    }

    /// A count that does not depend on a list payload ([`Count::PerEntry`] gives its
    /// base: the least count).
    #[inline]
    fn resolve_fixed(&self, count: Count, phase: Phase) -> CountRange {
        match count {
            Exactly(count) => CountRange::exactly(count as usize),
            Between(min, max) => CountRange {
                min: min as usize,
                max: max as usize,
            },
            AtLeast(min) => CountRange::at_least(min as usize),
            PerEntry { base, .. } => CountRange::at_least(base as usize),
            Payload => self.payload_count(phase),
        }
    }

    /// The counts the table gives as [`Count::Payload`].
    fn payload_count(&self, phase: Phase) -> CountRange {
        match *self {
            // Operands: the callee of an indirect call, then the arguments.
            OpKind::Call { callee, .. } | OpKind::TryCall { callee, .. } => {
                CountRange::at_least(usize::from(callee.is_none()))
            }
            // Operands: the catchswitch token, then the catch object slot if any.
            OpKind::CatchPad { has_slot, .. } => CountRange::exactly(1 + usize::from(has_slot)),
            // Successors: the handlers, then the unwind destination unless it unwinds to
            // the caller.
            OpKind::CatchSwitch { unwind_to_caller } => {
                CountRange::at_least(1 + usize::from(!unwind_to_caller))
            }
            // Successors: the unwind destination, only after flattening.
            OpKind::Throw { .. } if phase == Phase::Structured => CountRange::exactly(0),
            OpKind::Throw { .. } => CountRange { min: 0, max: 1 },
            _ => CountRange::at_least(0),
        }
    }
}
