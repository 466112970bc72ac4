//! The C++ ABI vocabulary every phase after flattening shares: which EH ABI
//! ([`EhAbi`]), its personality routine, the C++ runtime functions lowered code calls and
//! their signatures ([`runtime`]), the Microsoft names of Itanium types and back
//! ([`type_names`]), the size and alignment of CIR types ([`layout`]), and how classes
//! become records ([`records`]).
//!
//! Each fact is stated once here: the reader, the EH ABI lowerings, the interpreter, the
//! tables and the LLVM emitter all ask this module.

pub mod layout;
pub mod records;
pub mod runtime;
pub mod type_names;

pub use layout::{LayoutError, SizeAlign, TypeLayouter, size_align};
pub use runtime::{RuntimeFunction, RuntimeType, runtime_function};

use crate::Phase;

/// The personality routine of the Itanium C++ ABI (libstdc++, libc++abi).
pub const ITANIUM_PERSONALITY: &str = "__gxx_personality_v0";
/// The personality routine of the Microsoft C++ EH model that ehir emits.
pub const MSVC_PERSONALITY: &str = "__CxxFrameHandler3";
/// The newer Microsoft personality routine (FH4); recognised, never emitted.
pub const MSVC_PERSONALITY_FH4: &str = "__CxxFrameHandler4";

/// The size of the Itanium unwind header (`_Unwind_Exception`) that precedes a thrown
/// object: a landing pad's exception pointer plus this is the object (clang's
/// `getSizeOfUnwindException`, 32 on the targets ehir knows).
pub const ITANIUM_UNWIND_HEADER_SIZE: u32 = 32;

/// A C++ exception-handling ABI: how exceptions are raised, dispatched and caught once
/// the structured EH of CIR is lowered.
///
/// The CLR's EH clauses are not an ABI of their own here: they are a table format over
/// MSVC funclets (`ehir_tables::TableFormat::Clr`).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub enum EhAbi {
    /// Landing pads, `__gxx_personality_v0`, the `__cxa_*` runtime (libstdc++).
    #[default]
    Itanium,
    /// Funclets, `__CxxFrameHandler3`, msvcrt's `_CxxThrowException`.
    Msvc,
}

impl EhAbi {
    /// Every EH ABI, in a fixed order.
    pub const ALL: [EhAbi; 2] = [EhAbi::Itanium, EhAbi::Msvc];

    /// The lower-case name used on command lines and in pass names (`itanium`, `msvc`).
    pub fn name(self) -> &'static str {
        match self {
            EhAbi::Itanium => "itanium",
            EhAbi::Msvc => "msvc",
        }
    }

    /// The width in bits of C++ `long` and `unsigned long` on this ABI's x86-64 target:
    /// 64 on Linux (LP64), 32 on Windows (LLP64). Pointers, `long long` and `size_t` are
    /// 64 bits on both.
    pub fn long_bits(self) -> u16 {
        match self {
            EhAbi::Itanium => 64,
            EhAbi::Msvc => 32,
        }
    }

    /// The ABI named `name` (see [`EhAbi::name`]).
    pub fn from_name(name: &str) -> Option<EhAbi> {
        EhAbi::ALL.into_iter().find(|abi| abi.name() == name)
    }

    /// The phase of functions lowered to this ABI.
    pub fn phase(self) -> Phase {
        match self {
            EhAbi::Itanium => Phase::Itanium,
            EhAbi::Msvc => Phase::Msvc,
        }
    }

    /// The ABI of a lowered phase; `None` for the structured and flat phases.
    pub fn of_phase(phase: Phase) -> Option<EhAbi> {
        EhAbi::ALL.into_iter().find(|abi| abi.phase() == phase)
    }

    /// The personality routine functions lowered to this ABI get.
    pub fn personality(self) -> &'static str {
        match self {
            EhAbi::Itanium => ITANIUM_PERSONALITY,
            EhAbi::Msvc => MSVC_PERSONALITY,
        }
    }

    /// The ABI whose personality routine is `name` (both Microsoft routines count).
    pub fn of_personality(name: &str) -> Option<EhAbi> {
        match name {
            ITANIUM_PERSONALITY => Some(EhAbi::Itanium),
            MSVC_PERSONALITY | MSVC_PERSONALITY_FH4 => Some(EhAbi::Msvc),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_phases_and_personalities_round_trip() {
        for abi in EhAbi::ALL {
            assert_eq!(EhAbi::from_name(abi.name()), Some(abi));
            assert_eq!(EhAbi::of_phase(abi.phase()), Some(abi));
            assert_eq!(EhAbi::of_personality(abi.personality()), Some(abi));
        }
        assert_eq!(
            EhAbi::of_personality(MSVC_PERSONALITY_FH4),
            Some(EhAbi::Msvc)
        );
        assert_eq!(EhAbi::of_personality("my_personality"), None);
        assert_eq!(EhAbi::of_phase(Phase::Flat), None);
        assert_eq!(EhAbi::from_name("clr"), None);
    }
}
